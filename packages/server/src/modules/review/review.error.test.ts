import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { expectEnvelope } from '../../test/checks.js';
import { seedProduct, seedProductWithImages } from '../../test/products.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const flush = (id: string, payload: object) =>
  t.app.inject({ method: 'POST', url: `/v1/products/${id}/review`, headers: bearer(t.org.secret_key), payload });
const read = async (id: string) => (await t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key) })).json();

const productWithImages = (n = 3, opts: Parameters<typeof seedProduct>[2] = {}) => seedProductWithImages(t, t.org.org_id, n, opts);

describe('review flush: refusals change nothing', () => {
  it('a batch with one invalid image id changes nothing and names the item', async () => {
    const p = await productWithImages();
    const before = await read(p.id);
    const res = await flush(p.id, {
      images: [
        { image_id: p.images[0], decision: 'accepted' },
        { image_id: 'img_not_mine', decision: 'accepted' },
      ],
      status: 'published',
    });
    const error = expectEnvelope(res, 422, 'validation_failed');
    expect(error.details.errors).toEqual([{ path: 'body.images[1].image_id', message: 'is not an image of this product' }]);
    expect(await read(p.id)).toEqual(before);
  });

  it('refuses to publish without a ready model, and a transparent jpeg, with 422', async () => {
    const p = await productWithImages(1, { modelStatus: 'generating' });
    const before = await read(p.id);
    expect(expectEnvelope(await flush(p.id, { status: 'published' }), 422, 'validation_failed').details.errors[0].path).toBe('body.status');
    expectEnvelope(await flush(p.id, { images: [{ image_id: p.images[0], settings: { background: 'transparent', format: 'jpeg' } }] }), 422, 'validation_failed');
    const range = expectEnvelope(await flush(p.id, { images: [{ image_id: p.images[0], settings: { padding: 0.9, shadow: 'fuzzy' } }] }), 422, 'validation_failed');
    expect(range.details.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.images[0].settings.padding', 'body.images[0].settings.shadow']);
    expect(await read(p.id)).toEqual(before);
  });

  it('an unknown decision, an unknown field or an unknown product', async () => {
    const p = await productWithImages(1);
    const before = await read(p.id);
    expectEnvelope(await flush(p.id, { images: [{ image_id: p.images[0], decision: 'maybe' }] }), 422, 'validation_failed');
    expectEnvelope(await flush(p.id, { model: { decision: 'accepted' }, colour: 'red' }), 422, 'validation_failed');
    expectEnvelope(await flush(p.id, { status: 'deleted' }), 422, 'validation_failed');
    expect(await read(p.id)).toEqual(before);
    expectEnvelope(await flush('prod_00000000000000000000000000', { model: { decision: 'accepted' } }), 404, 'not_found');
  });
});
