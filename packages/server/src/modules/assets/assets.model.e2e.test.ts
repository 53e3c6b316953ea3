import { validateGlb } from '@plinth/media';
import { boxDocument, glbBytes } from '@plinth/media/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { TEST_ALLOW } from '../../test/products.js';
import { registerJobHandlers } from '../../worker.js';

/**
 * PATCH /v1/products/{id}/model {model_url} replaces the model end to end: the job imports the URL the
 * request gave (not the product's first source), the product reaches done, and the new file's
 * dimensions are what the product says. A replacement that fails keeps the current model served.
 */
let t: TestApp;
let web: FixtureServer;

beforeAll(async () => {
  web = await startFixtureServer();
  web.set('/small.glb', await glbBytes(boxDocument({ meshSize: [0.4, 0.3, 0.2] }).doc), 'model/gltf-binary');
  web.set('/large.glb', await glbBytes(boxDocument({ meshSize: [1.2, 0.5, 0.25] }).doc), 'model/gltf-binary');
  // A 30 cm parrot exported in centimetres and read as metres: 30 m tall.
  web.set('/tower.glb', await glbBytes(boxDocument({ meshSize: [10, 30, 8] }).doc), 'model/gltf-binary');
  const broken = Buffer.from(await glbBytes(boxDocument({ meshSize: [1, 1, 1] }).doc));
  broken.writeUInt32LE(broken.length + 1000, 8); // the header claims more bytes than the file has
  web.set('/broken.glb', broken, 'model/gltf-binary');
  t = await createTestApp(TEST_ALLOW);
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
});

afterAll(async () => {
  await t?.close();
  await web?.close();
});

const headers = () => bearer(t.org.secret_key);
const get = (id: string) => t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: headers() }).then((r) => r.json());
const until = (id: string, done: (p: any) => boolean, what: string) => waitFor(async () => ((p) => (done(p) ? p : undefined))(await get(id)), 90_000, what);
const replace = (id: string, url: string) => t.app.inject({ method: 'PATCH', url: `/v1/products/${id}/model`, headers: headers(), payload: { model_url: url } });

async function importModel(path: string) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/products', headers: headers(), payload: { model_url: web.url(path) } });
  expect(res.statusCode).toBe(202);
  return until(res.json().id, (p) => p.model_status !== 'queued', `import of ${path}`);
}

// An import renders a poster in Chromium, which takes a while on a busy machine.
describe('replacing a model by a new model_url', { timeout: 180_000 }, () => {
  it('imports the new file: new dimensions, done at 100 %, the old file gone', async () => {
    const first = await importModel('/small.glb');
    expect(first.model_status).toBe('ready');
    expect(first.model.dimensions.width).toBeCloseTo(0.4, 3);

    const patched = await replace(first.id, web.url('/large.glb'));
    expect(patched.statusCode).toBe(200);
    // The current model stays served while the new one is imported.
    expect(patched.json()).toMatchObject({ model_status: 'ready', model_url: first.model_url, step: 'replacing_model', progress: 0 });

    const p = await until(first.id, (x) => x.step === 'done' || x.step === 'failed', 'the replacement');
    expect(p.step).toBe('done');
    expect(p.progress).toBe(100);
    expect(p.error).toBeNull();
    expect(p.model_status).toBe('ready');
    expect(p.model.dimensions.width).toBeCloseTo(1.2, 3);
    expect(p.model.dimensions.height).toBeCloseTo(0.5, 3);
    expect(p.model.dimensions.depth).toBeCloseTo(0.25, 3);
    expect(p.model_url).not.toBe(first.model_url);
    expect(web.requests.filter((r) => r === '/large.glb')).toHaveLength(1);

    const glb = await t.app.inject({ method: 'GET', url: new URL(p.model_url).pathname });
    expect(glb.statusCode).toBe(200);
    expect((await validateGlb(glb.rawPayload)).errors).toBe(0);
    const old = await t.app.inject({ method: 'GET', url: new URL(first.model_url).pathname });
    expect(old.statusCode).toBe(404);
  });

  it('a replacement that fails keeps the current model and says why', async () => {
    const first = await importModel('/small.glb');
    expect((await replace(first.id, web.url('/broken.glb'))).statusCode).toBe(200);
    const p = await until(first.id, (x) => x.step === 'done' || x.step === 'failed', 'the failed replacement');
    expect(p.step).toBe('failed');
    expect(p.error.code).toBe('corrupt_model');
    expect(p.progress).toBeNull();
    expect(p.model_status).toBe('ready');
    expect(p.model_url).toBe(first.model_url);
    expect(p.model.dimensions.width).toBeCloseTo(0.4, 3);
  });

  it('a product whose import failed gets its model from a new model_url', async () => {
    const failed = await importModel('/broken.glb');
    expect(failed.model_status).toBe('failed');
    const patched = await replace(failed.id, web.url('/large.glb'));
    expect(patched.statusCode).toBe(200);
    expect(patched.json().model_status).toBe('queued');
    const p = await until(failed.id, (x) => x.model_status !== 'queued', 'the new import');
    expect(p.model_status).toBe('ready');
    expect(p.analysis_status).toBe('done');
    expect(p.error).toBeNull();
    expect(p.model.dimensions.width).toBeCloseTo(1.2, 3);
  });
});

describe('model.warnings', { timeout: 180_000 }, () => {
  it('an import 30 m tall is ready with an unusual_size warning; a rescale to a real size clears it', async () => {
    const p = await importModel('/tower.glb');
    expect(p.model_status).toBe('ready');
    expect(p.model.warnings).toHaveLength(1);
    expect(p.model.warnings[0].code).toBe('unusual_size');
    expect(p.model.warnings[0].message).toMatch(/30 m .*Rescale/);
    expect(p.model.quality).toMatchObject({ method: 'imported', scale_source: 'file' });

    const rescaled = await t.app.inject({ method: 'POST', url: `/v1/products/${p.id}/model/rescale`, headers: headers(), payload: { dimensions: { height: 0.3 } } });
    expect(rescaled.statusCode, rescaled.body).toBe(200);
    expect(rescaled.json().model.warnings).toEqual([]);
    // The model keeps how it was made; its size is now the caller's.
    expect(rescaled.json().model.quality).toMatchObject({ method: 'imported', scale_source: 'given' });
    expect((await get(p.id)).model.warnings).toEqual([]);

    // Rescaled down to 3 mm, the warning comes back, saying so.
    const tiny = await t.app.inject({ method: 'POST', url: `/v1/products/${p.id}/model/rescale`, headers: headers(), payload: { scale: 0.01 } });
    expect(tiny.json().model.warnings.map((w: { code: string }) => w.code)).toEqual(['unusual_size']);
    expect(tiny.json().model.warnings[0].message).toMatch(/3 mm/);
  });

  it('a model of a plausible size has none', async () => {
    const p = await importModel('/small.glb');
    expect(p.model.warnings).toEqual([]);
  });
});
