import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { quoteAndCommit, seedProduct } from '../../test/products.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const get = (url: string, headers: Record<string, string> = bearer(t.org.secret_key)) => t.app.inject({ method: 'GET', url, headers });

describe('create', () => {
  it('a quote, then its commit, gives the product that GET then returns', async () => {
    const created = await quoteAndCommit(t, t.org.secret_key, { image_urls: ['https://93.184.216.34/chair.jpg'], title: 'Chair', tags: ['oak'], custom_id: 'SKU-HAPPY' });
    expect(created).toMatchObject({ object: 'product', title: 'Chair', tags: ['oak'], custom_id: 'SKU-HAPPY', status: 'draft' });
    const res = await get(`/v1/products/${created.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: created.id, title: 'Chair', tags: ['oak'], custom_id: 'SKU-HAPPY' });
    const listed = (await get('/v1/products?custom_id=SKU-HAPPY')).json();
    expect(listed.data.map((p: { id: string }) => p.id)).toEqual([created.id]);
  });
});

describe('list, filters and tags', () => {
  let ids: Record<string, string>;
  let orgId: string;
  let key: string;
  beforeAll(async () => {
    const org = await t.bootstrap();
    orgId = org.org_id;
    key = org.secret_key;
    ids = {
      a: await seedProduct(t, orgId, { tags: ['red', 'chair'], title: 'Red Chair', customId: 'SKU-A' }),
      b: await seedProduct(t, orgId, { tags: ['red'], title: 'Red Lamp', status: 'published' }),
      c: await seedProduct(t, orgId, { tags: ['chair'], title: 'Oak chair 100%_off', modelStatus: 'queued' }),
      d: await seedProduct(t, orgId, { title: 'Untagged' }),
    };
  });
  const list = async (qs: string) => (await get(`/v1/products?${qs}`, bearer(key))).json();

  it('pages newest first with total, limit and offset', async () => {
    const page = await list('limit=2&offset=1');
    expect(page.total).toBe(4);
    expect(page.limit).toBe(2);
    expect(page.offset).toBe(1);
    expect(page.data.map((p: { id: string }) => p.id)).toEqual([ids.c, ids.b]);
  });

  it('tag filters combine with tag_match all (default) or any', async () => {
    const all = await list('tag=red&tag=chair');
    expect(all.data.map((p: { id: string }) => p.id)).toEqual([ids.a]);
    const any = await list('tag=red&tag=chair&tag_match=any');
    expect(any.data.map((p: { id: string }) => p.id).sort()).toEqual([ids.a, ids.b, ids.c].sort());
    expect(any.total).toBe(3);
  });

  it('status, model_status, q and custom_id filters', async () => {
    expect((await list('status=published')).data.map((p: { id: string }) => p.id)).toEqual([ids.b]);
    expect((await list('model_status=queued')).data.map((p: { id: string }) => p.id)).toEqual([ids.c]);
    expect((await list('q=CHAIR')).total).toBe(2);
    expect((await list('q=100%25_')).data.map((p: { id: string }) => p.id)).toEqual([ids.c]);
    expect((await list('custom_id=SKU-A')).data.map((p: { id: string }) => p.id)).toEqual([ids.a]);
  });

  it('tags with counts', async () => {
    const res = await get('/v1/products/tags', bearer(key));
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([
      { tag: 'chair', count: 2 },
      { tag: 'red', count: 2 },
    ]);
    expect(res.json().total).toBe(2);
  });
});

describe('retrieve, update, delete', () => {
  it('retrieves with assets, updates title/custom_id/tags, refuses a duplicate custom_id', async () => {
    const id = await seedProduct(t, t.org.org_id, { tags: ['x'] });
    const other = await seedProduct(t, t.org.org_id, { customId: 'TAKEN' });
    const res = await get(`/v1/products/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().model.dimensions).toEqual({ width: 0.3, height: 0.2, depth: 0.1 });
    expect(res.json().images).toEqual([]);
    const patch = await t.app.inject({ method: 'PATCH', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key), payload: { title: 'New', tags: ['y', ' y ', 'z'] } });
    expect(patch.statusCode).toBe(200);
    expect(patch.json().title).toBe('New');
    expect(patch.json().tags).toEqual(['y', 'z']);
    const dup = await t.app.inject({ method: 'PATCH', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key), payload: { custom_id: 'TAKEN' } });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.code).toBe('conflict');
    void other;
    const empty = await t.app.inject({ method: 'PATCH', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key), payload: {} });
    expect(empty.statusCode).toBe(422);
  });

  it('deletes one (then 404), and a batch answers only what it deleted', async () => {
    const mine = [await seedProduct(t, t.org.org_id), await seedProduct(t, t.org.org_id)];
    const theirs = await seedProduct(t, (await t.bootstrap()).org_id);
    const one = await t.app.inject({ method: 'DELETE', url: `/v1/products/${mine[0]}`, headers: bearer(t.org.secret_key) });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual({ object: 'product', id: mine[0], deleted: true });
    expect((await get(`/v1/products/${mine[0]}`)).statusCode).toBe(404);
    const batch = await t.app.inject({ method: 'DELETE', url: `/v1/products?ids=${mine[1]}&ids=${theirs}&ids=prod_nope`, headers: bearer(t.org.secret_key) });
    expect(batch.statusCode).toBe(200);
    expect(batch.json().deleted).toEqual([mine[1]]);
    const still = await t.deps.database.db.selectFrom('products').select('id').where('id', '=', theirs).executeTakeFirst();
    expect(still?.id).toBe(theirs);
    const events = await t.deps.database.db.selectFrom('events').select('type').where('data', 'like', `%${mine[1]}%`).execute();
    expect(events.map((e) => e.type)).toContain('product.deleted');
  });
});

describe('publish and the public projection', () => {
  it('publishes ready products and lists the others as refused', async () => {
    const ready = await seedProduct(t, t.org.org_id);
    const notReady = await seedProduct(t, t.org.org_id, { modelStatus: 'generating' });
    const foreign = await seedProduct(t, (await t.bootstrap()).org_id);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/products/publish',
      headers: bearer(t.org.secret_key),
      payload: { ids: [ready, notReady, foreign] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().updated).toEqual([ready]);
    expect(res.json().refused).toEqual([
      { id: notReady, reason: 'model_not_ready' },
      { id: foreign, reason: 'not_found' },
    ]);
    const p = (await get(`/v1/products/${ready}`)).json();
    expect(p.status).toBe('published');
    expect(p.published_at).toBeTruthy();
  });

  it('pk_ sees exactly five fields of a published ready product; anything else is 404', async () => {
    const pub = await seedProduct(t, t.org.org_id, { status: 'published', title: 'Vase' });
    const draft = await seedProduct(t, t.org.org_id);
    const notReady = await seedProduct(t, t.org.org_id, { status: 'published', modelStatus: 'generating' });
    const foreign = await seedProduct(t, (await t.bootstrap()).org_id, { status: 'published' });
    const pk = { ...bearer(t.org.publishable_key), origin: 'https://shop.example' };
    const res = await get(`/v1/products/${pub}`, pk);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['id', 'model_status', 'model_url', 'thumbnail_url', 'title']);
    expect(body.title).toBe('Vase');
    expect(body.model_status).toBe('ready');
    expect(body.model_url).toMatch(/\/files\/orgs\/.+\.glb$/);
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
    for (const id of [draft, notReady, foreign, 'prod_missing']) {
      const r = await get(`/v1/products/${id}`, pk);
      expect(r.statusCode, id).toBe(404);
      expect(r.json().error.code).toBe('not_found');
    }
  });
});
