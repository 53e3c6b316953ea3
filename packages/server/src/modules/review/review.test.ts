import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authMatrix } from '../../test/auth-matrix.js';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { seedImages, seedProduct } from '../../test/products.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const flush = (id: string, payload: object) =>
  t.app.inject({ method: 'POST', url: `/v1/products/${id}/review`, headers: bearer(t.org.secret_key), payload });

async function productWithImages(n = 3, opts: Parameters<typeof seedProduct>[2] = {}) {
  const id = await seedProduct(t, t.org.org_id, opts);
  return { id, images: await seedImages(t, id, t.org.org_id, n) };
}

describe('review flush', () => {
  it('a batch with one invalid image id changes nothing and names the item', async () => {
    const p = await productWithImages();
    const before = (await t.app.inject({ method: 'GET', url: `/v1/products/${p.id}`, headers: bearer(t.org.secret_key) })).json();
    const res = await flush(p.id, {
      images: [
        { image_id: p.images[0], decision: 'accepted' },
        { image_id: 'img_not_mine', decision: 'accepted' },
      ],
      status: 'published',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details.errors).toEqual([{ path: 'body.images[1].image_id', message: 'is not an image of this product' }]);
    const after = (await t.app.inject({ method: 'GET', url: `/v1/products/${p.id}`, headers: bearer(t.org.secret_key) })).json();
    expect(after).toEqual(before);
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

  it('refuses to publish without a ready model, and a transparent jpeg, with 422', async () => {
    const p = await productWithImages(1, { modelStatus: 'generating' });
    const res = await flush(p.id, { status: 'published' });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details.errors[0].path).toBe('body.status');
    const bad = await flush(p.id, { images: [{ image_id: p.images[0], settings: { background: 'transparent', format: 'jpeg' } }] });
    expect(bad.statusCode).toBe(422);
    const range = await flush(p.id, { images: [{ image_id: p.images[0], settings: { padding: 0.9, shadow: 'fuzzy' } }] });
    expect(range.statusCode).toBe(422);
    expect(range.json().error.details.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.images[0].settings.padding', 'body.images[0].settings.shadow']);
  });

  it('records decisions only: no file is written', async () => {
    const p = await productWithImages(2);
    const before = await t.deps.storage.list('orgs/');
    await flush(p.id, { images: p.images.map((image_id) => ({ image_id, decision: 'accepted' })) });
    expect(await t.deps.storage.list('orgs/')).toEqual(before);
  });
});

describe('image settings and position', () => {
  it('PATCH image settings and moves an image, keeping positions dense', async () => {
    const p = await productWithImages(3);
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/products/${p.id}/images/${p.images[2]}`,
      headers: bearer(t.org.secret_key),
      payload: { position: 0, settings: { background: 'transparent' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const order = res.json().images.map((i: { image_id: string; position: number }) => [i.image_id, i.position]);
    expect(order).toEqual([
      [p.images[2], 0],
      [p.images[0], 1],
      [p.images[1], 2],
    ]);
    expect(res.json().images[0].settings).toEqual({ background: 'transparent' });
    const other = await t.app.inject({ method: 'PATCH', url: `/v1/products/${p.id}/images/img_nope`, headers: bearer(t.org.secret_key), payload: { position: 1 } });
    expect(other.statusCode).toBe(404);
  });

  it('PATCH model viewer settings', async () => {
    const id = await seedProduct(t, t.org.org_id);
    const res = await t.app.inject({ method: 'PATCH', url: `/v1/products/${id}/model`, headers: bearer(t.org.secret_key), payload: { settings: { exposure: 1.2, camera_orbit: '30deg 75deg 2m' } } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().model.settings).toEqual({ exposure: 1.2, camera_orbit: '30deg 75deg 2m' });
    const bad = await t.app.inject({ method: 'PATCH', url: `/v1/products/${id}/model`, headers: bearer(t.org.secret_key), payload: { settings: { exposure: -1 } } });
    expect(bad.statusCode).toBe(422);
  });
});

const seeded = async (tt: TestApp, _k: string, orgId: string) => {
  const productId = await seedProduct(tt, orgId);
  const [imageId] = await seedImages(tt, productId, orgId, 1);
  return { productId, imageId };
};
authMatrix('review and assets', [
  {
    name: 'POST /v1/products/:id/review',
    scope: 'products:write',
    setup: seeded,
    request: (c) => ({ method: 'POST', url: `/v1/products/${c.ids.productId}/review`, payload: { model: { decision: 'accepted' } } }),
    otherOrg: (c) => ({ method: 'POST', url: `/v1/products/${c.idsB.productId}/review`, payload: { model: { decision: 'accepted' } } }),
    unknownId: () => ({ method: 'POST', url: '/v1/products/prod_0000/review', payload: { model: { decision: 'accepted' } } }),
  },
  {
    name: 'PATCH /v1/products/:id/images/:image_id',
    scope: 'products:write',
    setup: seeded,
    request: (c) => ({ method: 'PATCH', url: `/v1/products/${c.ids.productId}/images/${c.ids.imageId}`, payload: { position: 0 } }),
    otherOrg: (c) => ({ method: 'PATCH', url: `/v1/products/${c.idsB.productId}/images/${c.idsB.imageId}`, payload: { position: 0 } }),
    unknownId: (c) => ({ method: 'PATCH', url: `/v1/products/prod_0000/images/${c.ids.imageId}`, payload: { position: 0 } }),
  },
  {
    name: 'PATCH /v1/products/:id/model',
    scope: 'products:write',
    setup: seeded,
    request: (c) => ({ method: 'PATCH', url: `/v1/products/${c.ids.productId}/model`, payload: { settings: { exposure: 1 } } }),
    otherOrg: (c) => ({ method: 'PATCH', url: `/v1/products/${c.idsB.productId}/model`, payload: { settings: { exposure: 1 } } }),
    unknownId: () => ({ method: 'PATCH', url: '/v1/products/prod_0000/model', payload: { settings: { exposure: 1 } } }),
  },
  {
    name: 'POST /v1/products/:id/model/rescale',
    scope: 'products:write',
    setup: seeded,
    request: (c) => ({ method: 'POST', url: `/v1/products/${c.ids.productId}/model/rescale`, payload: { scale: 2 } }),
    otherOrg: (c) => ({ method: 'POST', url: `/v1/products/${c.idsB.productId}/model/rescale`, payload: { scale: 2 } }),
    unknownId: () => ({ method: 'POST', url: '/v1/products/prod_0000/model/rescale', payload: { scale: 2 } }),
  },
]);
