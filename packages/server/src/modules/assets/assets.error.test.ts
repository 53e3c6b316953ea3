import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, send, type TestApp } from '../../test/app.js';
import { expectEnvelope, snapshot } from '../../test/checks.js';
import { seedImages, seedProduct } from '../../test/products.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const call = (method: Parameters<typeof send>[1], url: string, payload?: object) => send(t, method, url, payload);
const read = async (id: string) => (await call('GET', `/v1/products/${id}`)).json();
const unknown = 'prod_00000000000000000000000000';

describe('assets: refusals change nothing', () => {
  it('image PATCH: an empty body, bad settings or a position out of range is 422; an image of another product is 404', async () => {
    const id = await seedProduct(t, t.org.org_id);
    const [image] = await seedImages(t, id, t.org.org_id, 2);
    const otherProduct = await seedProduct(t, t.org.org_id);
    const [otherImage] = await seedImages(t, otherProduct, t.org.org_id, 1);
    const before = await read(id);
    expectEnvelope(await call('PATCH', `/v1/products/${id}/images/${image}`, {}), 422, 'validation_failed');
    const bad = expectEnvelope(await call('PATCH', `/v1/products/${id}/images/${image}`, { settings: { background: 'red', shadow: 'fuzzy' } }), 422, 'validation_failed');
    expect(bad.details.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.settings.background', 'body.settings.shadow']);
    expectEnvelope(await call('PATCH', `/v1/products/${id}/images/${image}`, { position: -1 }), 422, 'validation_failed');
    expectEnvelope(await call('PATCH', `/v1/products/${id}/images/${otherImage}`, { position: 0 }), 404, 'not_found');
    expectEnvelope(await call('PATCH', `/v1/products/${id}/images/img_00000000000000000000000000`, { position: 0 }), 404, 'not_found');
    expect(await read(id)).toEqual(before);
  });

  it('model PATCH: an empty body, a setting out of range or an unknown one is 422; an unknown product 404', async () => {
    const id = await seedProduct(t, t.org.org_id);
    const before = await read(id);
    expectEnvelope(await call('PATCH', `/v1/products/${id}/model`, {}), 422, 'validation_failed');
    const range = expectEnvelope(await call('PATCH', `/v1/products/${id}/model`, { settings: { exposure: -1 } }), 422, 'validation_failed');
    expect(range.details.errors[0].path).toBe('body.settings.exposure');
    expectEnvelope(await call('PATCH', `/v1/products/${id}/model`, { settings: { glow: true } }), 422, 'validation_failed');
    expectEnvelope(await call('PATCH', `/v1/products/${id}/model`, { model_url: 'http://10.0.0.1/m.glb' }), 422, 'validation_failed');
    expect(await read(id)).toEqual(before);
    expectEnvelope(await call('PATCH', `/v1/products/${unknown}/model`, { settings: { exposure: 1 } }), 404, 'not_found');
  });

  it('rescale: neither or both of scale and dimensions, or two dimensions, is 422; no ready model is 409; nothing is written', async () => {
    const id = await seedProduct(t, t.org.org_id);
    const generating = await seedProduct(t, t.org.org_id, { modelStatus: 'generating' });
    const before = await snapshot(t);
    const productBefore = await read(id);
    for (const payload of [{}, { scale: 2, dimensions: { height: 1 } }, { dimensions: { height: 1, width: 1 } }, { scale: 0 }, { scale: -1 }]) {
      expectEnvelope(await call('POST', `/v1/products/${id}/model/rescale`, payload), 422, 'validation_failed');
    }
    expect(expectEnvelope(await call('POST', `/v1/products/${generating}/model/rescale`, { scale: 2 }), 409, 'conflict').details.reason).toBe('model_not_ready');
    // A seeded model has no file behind it: the rescale says so instead of failing inside.
    expect(expectEnvelope(await call('POST', `/v1/products/${id}/model/rescale`, { scale: 2 }), 409, 'conflict').details.reason).toBe('model_file_missing');
    expectEnvelope(await call('POST', `/v1/products/${unknown}/model/rescale`, { scale: 2 }), 404, 'not_found');
    expect(await snapshot(t)).toEqual(before);
    expect(await read(id)).toEqual(productBefore);
  });
});
