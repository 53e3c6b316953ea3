import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { seedProduct, seedProductWithImages } from '../../test/products.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const flush = (id: string, payload: object) =>
  t.app.inject({ method: 'POST', url: `/v1/products/${id}/review`, headers: bearer(t.org.secret_key), payload });

const productWithImages = (n = 3, opts: Parameters<typeof seedProduct>[2] = {}) => seedProductWithImages(t, t.org.org_id, n, opts);

describe('review flush', () => {
  it('decides the model and publishes in one call', async () => {
    const p = await productWithImages(1);
    const res = await flush(p.id, { model: { decision: 'accepted' }, status: 'published' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: p.id, status: 'published', model: { decision: 'accepted' } });
    const read = (await t.app.inject({ method: 'GET', url: `/v1/products/${p.id}`, headers: bearer(t.org.secret_key) })).json();
    expect(read.status).toBe('published');
    expect(read.model.decision).toBe('accepted');
  });

  it('applies in order: the same image decided twice ends with the last decision; settings merge', async () => {
    const p = await productWithImages();
    const res = await flush(p.id, {
      images: [
        { image_id: p.images[0], decision: 'accepted', settings: { background: '#FF0000', shadow: 'none' } },
        { image_id: p.images[1], decision: 'rejected' },
        { image_id: p.images[0], decision: 'rejected', settings: { padding: 0.2 } },
      ],
      model: { decision: 'accepted' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const img0 = body.images.find((i: { image_id: string }) => i.image_id === p.images[0]);
    expect(img0.image_review_status).toBe('rejected');
    expect(img0.settings).toEqual({ background: '#ff0000', shadow: 'none', padding: 0.2 });
    expect(body.images.find((i: { image_id: string }) => i.image_id === p.images[1]).image_review_status).toBe('rejected');
    expect(body.images.find((i: { image_id: string }) => i.image_id === p.images[2]).image_review_status).toBe('pending');
    expect(body.model.decision).toBe('accepted');
  });

  it('sets the status last, after image decisions, and emits product.published', async () => {
    const p = await productWithImages(1);
    const res = await flush(p.id, { status: 'published', images: [{ image_id: p.images[0], decision: 'accepted' }] });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('published');
    expect(res.json().published_at).toBeTruthy();
    const events = await t.deps.database.db.selectFrom('events').select(['type', 'seq']).where('data', 'like', `%${p.id}%`).orderBy('seq').execute();
    expect(events.map((e) => e.type)).toEqual(['product.updated', 'product.published']);
  });

  it('records decisions only: no file is written', async () => {
    const p = await productWithImages(2);
    const before = await t.deps.storage.list('orgs/');
    await flush(p.id, { images: p.images.map((image_id) => ({ image_id, decision: 'accepted' })) });
    expect(await t.deps.storage.list('orgs/')).toEqual(before);
  });
});
