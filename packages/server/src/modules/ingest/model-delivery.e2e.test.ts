import { existsSync } from 'node:fs';
import { NodeIO } from '@gltf-transform/core';
import { scanDocument } from '@plinth/media/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { TEST_ALLOW } from '../../test/products.js';
import { registerJobHandlers } from '../../worker.js';

/**
 * Every ready model keeps its master and is served as deliveries made from it (DESIGN section 14): the
 * import optimises to the installation's budgets, PATCH …/model {delivery_budgets} re-optimises in a job,
 * a rescale re-optimises, and the master is for secret keys and sessions only.
 */
const chromium = process.env.PLINTH_CHROMIUM_PATH || '/usr/bin/chromium';
const hasChromium = existsSync(chromium);
if (!hasChromium) console.warn(`[plinth] delivery e2e skipped: no Chromium at ${chromium} (the fidelity check renders)`);

let t: TestApp;
let web: FixtureServer;
let scanBytes: Buffer;

beforeAll(async () => {
  if (!hasChromium) return;
  web = await startFixtureServer();
  // 3,200 triangles, two 256 px textures: over a 1,500-triangle web budget, within the default mobile one.
  scanBytes = Buffer.from(await new NodeIO().writeBinary(await scanDocument({ rings: 40, segments: 40, bands: 2, textureSize: 256 })));
  web.set('/scan.glb', scanBytes, 'model/gltf-binary');
  t = await createTestApp({ ...TEST_ALLOW, PLINTH_DELIVERY_WEB_MAX_TRIANGLES: '1500', LOG_LEVEL: 'error' });
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
});

afterAll(async () => {
  await t?.close();
  await web?.close();
});

const sk = () => bearer(t.org.secret_key);
const pk = () => ({ ...bearer(t.org.publishable_key), origin: 'https://shop.example' });
const get = (id: string) => t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: sk() }).then((r) => r.json());
const path = (url: string) => new URL(url).pathname;
const fetchFile = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: path(url), headers });

describe.skipIf(!hasChromium)('model deliveries', { timeout: 240_000 }, () => {
  let product: any;

  beforeAll(async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/products', headers: sk(), payload: { model_url: web.url('/scan.glb') } });
    expect(res.statusCode).toBe(202);
    product = await waitFor(async () => ((p) => (p.model_status !== 'queued' ? p : undefined))(await get(res.json().id)), 180_000, 'the import');
  }, 200_000);

  it('an import keeps the master and serves a web delivery within budget, checked by SSIM', async () => {
    expect(product.error).toBeNull();
    expect(product.model_status).toBe('ready');
    const m = product.model;
    expect(m.url).toBe(m.delivery.web.url);
    expect(product.model_url).toBe(m.delivery.web.url);
    expect(m.usdz_url).toBe(m.delivery.usdz.url);
    expect(m.delivery.web.triangles).toBeLessThanOrEqual(1500);
    expect(m.delivery.web.ssim).toBeGreaterThanOrEqual(0.95);
    expect(m.delivery.web.max_texture_px).toBe(256);
    expect(m.triangles).toBe(m.delivery.web.triangles);
    // Already within the default mobile budget: the master itself, byte for byte.
    expect(m.delivery.mobile).toMatchObject({ triangles: 3200, ssim: 1 });
    const master = await fetchFile(m.master_url, sk());
    expect(master.statusCode).toBe(200);
    const mobile = await fetchFile(m.delivery.mobile.url);
    expect(mobile.rawPayload.equals(master.rawPayload)).toBe(true);
    const webFile = await fetchFile(m.delivery.web.url);
    expect(webFile.rawPayload.byteLength).toBe(m.delivery.web.bytes);
    expect(webFile.rawPayload.byteLength).toBeLessThan(master.rawPayload.byteLength);
    expect(m.warnings).toEqual([]);
  });

  it('the master is for secret keys and sessions: a publishable key and the public route get 404', async () => {
    const masterUrl = product.model.master_url;
    expect((await fetchFile(masterUrl, pk())).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: path(masterUrl).replace('/v1/files/', '/files/') })).statusCode).toBe(404);
    const published = await t.app.inject({ method: 'POST', url: '/v1/products/publish', headers: sk(), payload: { ids: [product.id] } });
    expect(published.statusCode).toBe(200);
    const pub = await t.app.inject({ method: 'GET', url: `/v1/products/${product.id}`, headers: pk() });
    expect(pub.statusCode).toBe(200);
    expect(JSON.stringify(pub.json())).not.toContain('master');
    const embed = await t.app.inject({ method: 'GET', url: `/embed/products/${product.id}`, headers: pk() });
    expect(embed.json().sources).toEqual({ web: product.model.delivery.web.url, mobile: product.model.delivery.mobile.url, usdz: product.model.usdz_url });
  });

  it('PATCH {delivery_budgets} re-optimises from the master in a job; a rescale re-optimises with them', async () => {
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/products/${product.id}/model`,
      headers: sk(),
      payload: { delivery_budgets: { mobile: { max_triangles: 1500, max_texture_px: 128 } } },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().model.delivery_budgets).toEqual({ mobile: { max_triangles: 1500, max_texture_px: 128 } });
    const after = await waitFor(async () => ((p) => (p.model.delivery.mobile.max_texture_px <= 128 ? p : undefined))(await get(product.id)), 120_000, 'the re-optimisation');
    expect(after.model.delivery.mobile.triangles).toBeLessThanOrEqual(1500);
    expect(after.model.delivery.mobile.ssim).toBeGreaterThanOrEqual(0.95);
    expect(after.model.master_url).toBe(product.model.master_url);
    expect((await fetchFile(product.model.delivery.web.url)).statusCode).toBe(404);

    const rescaled = await t.app.inject({ method: 'POST', url: `/v1/products/${product.id}/model/rescale`, headers: sk(), payload: { scale: 2 } });
    expect(rescaled.statusCode).toBe(200);
    const r = rescaled.json().model;
    expect(r.dimensions.width).toBeCloseTo(after.model.dimensions.width * 2, 3);
    expect(r.master_url).not.toBe(after.model.master_url);
    expect(r.delivery.web.url).not.toBe(after.model.delivery.web.url);
    expect(r.delivery.web.triangles).toBeLessThanOrEqual(1500);
    expect(r.delivery.mobile.triangles).toBeLessThanOrEqual(1500);
    expect(r.delivery.mobile.max_texture_px).toBeLessThanOrEqual(128);
    expect(r.delivery.mobile.ssim).toBeGreaterThanOrEqual(0.95);
    expect((await fetchFile(after.model.master_url, sk())).statusCode).toBe(404);
  });

  it('delivery_budgets: another organization gets 404, a bad budget 422', async () => {
    const otherOrg = await t.bootstrap();
    const other = await t.app.inject({ method: 'PATCH', url: `/v1/products/${product.id}/model`, headers: bearer(otherOrg.secret_key), payload: { delivery_budgets: { web: { max_bytes: 100_000 } } } });
    expect(other.statusCode).toBe(404);
    const bad = await t.app.inject({ method: 'PATCH', url: `/v1/products/${product.id}/model`, headers: sk(), payload: { delivery_budgets: { web: { max_polygons: 10 } } } });
    expect(bad.statusCode).toBe(422);
    const pkPatch = await t.app.inject({ method: 'PATCH', url: `/v1/products/${product.id}/model`, headers: pk(), payload: { delivery_budgets: { web: { max_bytes: 100_000 } } } });
    expect(pkPatch.statusCode).toBe(403);
  });
});
