import sharp from 'sharp';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeModel } from '../../../bench/models-lib/variety.mjs';
import { bearer } from '../../server/src/test/app.js';
import { registerJobHandlers } from '../../server/src/worker.js';
import { allowOrigins, assertBuilt, elementWarnings, launchChromium, startApi, startShop, waitFor, waitReady, type Api, type Shop } from './harness.js';

let api: Api;
let shop: Shop;
let browser: Browser;

beforeAll(async () => {
  assertBuilt();
  api = await startApi();
  registerJobHandlers(api.t.deps);
  await api.t.deps.jobs.start();
  shop = await startShop(api.base);
  await allowOrigins(api, api.t.org, [shop.origin]);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await api?.close();
});

/** Upload, import with model_path, wait for ready, publish: the path a developer takes. */
async function importPublished(glb: Buffer): Promise<{ id: string; modelUrl: string }> {
  const auth = bearer(api.t.org.secret_key);
  const up = await api.t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...auth, 'content-type': 'model/gltf-binary' }, payload: glb });
  expect(up.statusCode, up.body).toBe(201);
  const created = await api.t.app.inject({ method: 'POST', url: '/v1/products', headers: auth, payload: { model_path: up.json().path, title: 'Compressed' } });
  expect(created.statusCode, created.body).toBe(202);
  const id: string = created.json().id;
  const product = await waitFor(async () => {
    const p = (await api.t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: auth })).json();
    return ['ready', 'failed'].includes(p.model_status) && p;
  }, 110_000, 250);
  expect(product.model_status, JSON.stringify(product.error)).toBe('ready');
  const published = await api.t.app.inject({ method: 'POST', url: '/v1/products/publish', headers: auth, payload: { ids: [id] } });
  expect(published.statusCode, published.body).toBe(200);
  return { id, modelUrl: product.model_url };
}

async function pixelSpread(png: Buffer): Promise<number> {
  const { channels } = await sharp(png).stats();
  return Math.max(...channels.slice(0, 3).map((c) => c.stdev));
}

describe('a model stored with the compression it arrived with', { timeout: 240_000 }, () => {
  it.each([
    ['draco-chair', 'KHR_draco_mesh_compression', ['/embed/decoders/draco/draco_wasm_wrapper.js', '/embed/decoders/draco/draco_decoder.wasm']],
    ['meshopt-lamp', 'EXT_meshopt_compression', ['/embed/decoders/meshopt.js']],
  ] as const)('%s shows in the embed, its decoder served by Plinth, nothing fetched elsewhere', async (name, extension, decoderPaths) => {
    const { id, modelUrl } = await importPublished((await makeModel(name)).glb);
    const stored = Buffer.from(await (await fetch(modelUrl)).arrayBuffer());
    const json = JSON.parse(stored.toString('utf8', 20, 20 + stored.readUInt32LE(12)));
    expect(json.extensionsRequired).toContain(extension);

    const context = await browser.newContext({ viewport: { width: 640, height: 720 } });
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    const warnings = elementWarnings(page);
    await page.goto(shop.pageUrl(shop.origin, { 'product-id': id, 'publishable-key': api.t.org.publishable_key, 'api-base': api.base }));
    await waitReady(page, warnings);
    const viewer = page.locator('service-model').locator('model-viewer');
    expect(await viewer.evaluate((el: any) => el.loaded)).toBe(true);
    expect(await pixelSpread(await page.locator('service-model').screenshot())).toBeGreaterThan(8);

    for (const path of decoderPaths) {
      const call = api.calls.find((c) => c.path === path);
      expect(call?.status, `${path} was not fetched`).toBe(200);
    }
    const foreign = requested.filter((url) => !url.startsWith(api.base) && !url.startsWith(shop.origin) && !url.startsWith('blob:') && !url.startsWith('data:'));
    expect(foreign).toEqual([]);
    await context.close();
  });
});
