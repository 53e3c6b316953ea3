import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Files as other tools write them, each with a known true size; bench/models.mjs imports all ten, larger.
import { makeModel, restPoseSize, sizeError, varietyIO } from '../../../../../bench/models-lib/variety.mjs';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { waitFor } from '../../test/fixture-server.js';
import { registerJobHandlers } from '../../worker.js';

let t: TestApp;
beforeAll(async () => {
  // The poster render is beside the point here (and takes seconds per model in SwiftShader): no Chromium.
  t = await createTestApp({ PLINTH_CHROMIUM_PATH: 'plinth-test-no-chromium' });
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
});
afterAll(async () => t?.close());

const get = (id: string) => t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key) }).then((r) => r.json());

const KINDS = ['draco-chair', 'meshopt-lamp', 'quantized-vase', 'pbr-box', 'vertex-colours', 'transmission-glass', 'skinned-arm', 'multi-primitive', 'hierarchy-table', 'large-scan'];

describe('models of every kind, uploaded from disk and imported through the API', () => {
  it.each(KINDS)('%s: ready, its true size within a thousandth (reported and stored), a USDZ', async (name) => {
    const model = await makeModel(name, { largeTriangles: 20_000 });
    const up = await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(t.org.secret_key), 'content-type': 'model/gltf-binary' }, payload: model.glb });
    expect(up.statusCode, up.body).toBe(201);
    const created = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { model_path: up.json().path, title: name } });
    expect(created.statusCode, created.body).toBe(202);
    const p = await waitFor(async () => {
      const x = await get(created.json().id);
      return x.model_status === 'ready' || x.model_status === 'failed' ? x : undefined;
    }, 110_000, `${name} import`);
    expect(p.model_status, JSON.stringify(p.error)).toBe('ready');

    const { width, height, depth } = p.model.dimensions;
    expect(sizeError([width, height, depth], model.trueSize), `${width} × ${height} × ${depth} vs ${model.trueSize.join(' × ')}`).toBeLessThan(0.001);
    expect(p.model.triangles).toBe(model.triangles);

    const glb = await t.app.inject({ method: 'GET', url: new URL(p.model_url).pathname });
    expect(glb.statusCode).toBe(200);
    const stored = await (await varietyIO()).readBinary(glb.rawPayload);
    expect(sizeError(restPoseSize(stored), model.trueSize)).toBeLessThan(0.001);
    // Draco and meshopt files stay compressed; the others gain no compression.
    const compression = (names: string[]) => names.filter((e) => e === 'KHR_draco_mesh_compression' || e === 'EXT_meshopt_compression');
    expect(compression(stored.getRoot().listExtensionsUsed().map((e) => e.extensionName))).toEqual(compression(model.extensions));

    const usdz = await t.app.inject({ method: 'GET', url: new URL(p.model.usdz_url).pathname });
    expect(usdz.statusCode).toBe(200);
    expect(usdz.rawPayload.subarray(0, 2).toString('latin1')).toBe('PK');
  }, 120_000);
});
