import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, send, type TestApp } from '../../test/app.js';
import { waitFor } from '../../test/fixture-server.js';
import { seedImages, seedProduct } from '../../test/products.js';
import { boxGlb } from '../../test/upload-fixtures.js';
import { createWorkingTestApp } from '../../test/worker.js';

let t: TestApp;
beforeAll(async () => {
  t = await createWorkingTestApp();
});
afterAll(async () => t?.close());

const call = (method: Parameters<typeof send>[1], url: string, payload?: object) => send(t, method, url, payload);

describe('image settings and position', () => {
  it('PATCH image settings and moves an image, keeping positions dense', async () => {
    const id = await seedProduct(t, t.org.org_id);
    const images = await seedImages(t, id, t.org.org_id, 3);
    const res = await call('PATCH', `/v1/products/${id}/images/${images[2]}`, { position: 0, settings: { background: 'transparent' } });
    expect(res.statusCode, res.body).toBe(200);
    const order = res.json().images.map((i: { image_id: string; position: number }) => [i.image_id, i.position]);
    expect(order).toEqual([
      [images[2], 0],
      [images[0], 1],
      [images[1], 2],
    ]);
    expect(res.json().images[0].settings).toEqual({ background: 'transparent' });
    expect((await call('GET', `/v1/products/${id}`)).json().images.map((i: { image_id: string }) => i.image_id)).toEqual([images[2], images[0], images[1]]);
  });
});

describe('the model', () => {
  it('PATCH model viewer settings', async () => {
    const id = await seedProduct(t, t.org.org_id);
    const res = await call('PATCH', `/v1/products/${id}/model`, { settings: { exposure: 1.2, camera_orbit: '30deg 75deg 2m' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().model.settings).toEqual({ exposure: 1.2, camera_orbit: '30deg 75deg 2m' });
    expect((await call('GET', `/v1/products/${id}`)).json().model.settings).toEqual({ exposure: 1.2, camera_orbit: '30deg 75deg 2m' });
  });

  it('rescales an imported model by a factor, then to a height in metres', async () => {
    const up = await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(t.org.secret_key), 'content-type': 'model/gltf-binary' }, payload: await boxGlb(0.2) });
    expect(up.statusCode, up.body).toBe(201);
    const created = await call('POST', '/v1/products', { model_path: up.json().path, title: 'Box' });
    expect(created.statusCode, created.body).toBe(202);
    const id = created.json().id as string;
    const ready = await waitFor(async () => ((p) => (p.model_status === 'ready' || p.model_status === 'failed' ? p : undefined))((await call('GET', `/v1/products/${id}`)).json()), 110_000, 'the import');
    expect(ready.model_status, JSON.stringify(ready.error)).toBe('ready');
    expect(ready.model.dimensions.height).toBeCloseTo(0.2, 3);

    const doubled = await call('POST', `/v1/products/${id}/model/rescale`, { scale: 2 });
    expect(doubled.statusCode, doubled.body).toBe(200);
    expect(doubled.json().model.dimensions.height).toBeCloseTo(0.4, 3);
    expect(doubled.json().model.dimensions.width).toBeCloseTo(0.4, 3);
    expect(doubled.json().model_url).not.toBe(ready.model_url);

    const metre = await call('POST', `/v1/products/${id}/model/rescale`, { dimensions: { height: 1 } });
    expect(metre.statusCode, metre.body).toBe(200);
    expect(metre.json().model.dimensions.height).toBeCloseTo(1, 3);
    expect(metre.json().model.dimensions.depth).toBeCloseTo(1, 3);
    const served = await t.app.inject({ method: 'GET', url: new URL(metre.json().model_url).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.readUInt32LE(0)).toBe(0x46546c67); // "glTF"
  }, 150_000);
});
