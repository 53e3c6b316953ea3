import { devices, type Browser, type BrowserContextOptions } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProduct } from '../../server/src/modules/products/products.repo.js';
import { browserAssetKey } from '../../server/src/platform/storage/names.js';
import { allowOrigins, assertBuilt, boxGlb, elementWarnings, launchChromium, productWithModel, startApi, startShop, waitReady, type Api, type Shop } from './harness.js';

/**
 * `<service-model>` loads the `mobile` delivery on a phone (narrow screen), with Save-Data or on a slow
 * connection, and the `web` one on a desktop (DESIGN section 14). Which file loaded is read from the API's
 * own log of the requests it answered.
 */
let api: Api;
let shop: Shop;
let browser: Browser;
let productId: string;
let files: { web: string; mobile: string };

beforeAll(async () => {
  assertBuilt();
  api = await startApi();
  shop = await startShop(api.base);
  await allowOrigins(api, api.t.org, [shop.origin]);
  browser = await launchChromium();
  productId = await productWithModel(api, api.t.org, 'published');
  // Give the seeded model a mobile delivery of its own, a second file with the same box.
  const db = api.t.deps.database.db;
  const p = (await loadProduct(db, productId))!;
  const mobileKey = browserAssetKey(p, '.glb');
  await api.t.deps.storage.put(mobileKey, Buffer.from(await boxGlb()), { contentType: 'model/gltf-binary' });
  const glb = { bytes: 1000, triangles: 12, maxTexturePx: 0, ssim: 1 };
  const model = { ...p.model!, delivery: { web: { key: p.model!.glbKey, ...glb }, mobile: { key: mobileKey, ...glb }, usdz: { key: p.model!.usdzKey!, bytes: 1000, ssim: 1 } } };
  await db.updateTable('products').set({ model: JSON.stringify(model) }).where('id', '=', productId).execute();
  files = { web: new URL(api.t.deps.storage.publicUrl(p.model!.glbKey)).pathname, mobile: new URL(api.t.deps.storage.publicUrl(mobileKey)).pathname };
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await api?.close();
});

/** Opens the shop page in a fresh context and answers which of the two files the element fetched. */
async function loaded(options: BrowserContextOptions, init?: () => void): Promise<string[]> {
  const context = await browser.newContext(options);
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const warnings = elementWarnings(page);
  const before = api.calls.length;
  await page.goto(shop.pageUrl(shop.origin, { 'product-id': productId, 'publishable-key': api.t.org.publishable_key, 'api-base': api.base }));
  await waitReady(page, warnings);
  await context.close();
  return api.calls.slice(before).map((c) => c.path).filter((path) => path === files.web || path === files.mobile);
}

describe('which delivery the element loads', { timeout: 180_000 }, () => {
  it('a desktop loads web', async () => {
    expect(await loaded({ viewport: { width: 1280, height: 800 } }, () => {
      Object.defineProperty(navigator, 'deviceMemory', { get: () => 8 });
    })).toEqual([files.web]);
  });

  it('an emulated phone loads mobile', async () => {
    const { defaultBrowserType: _, ...phone } = devices['Pixel 7'];
    expect(await loaded(phone)).toEqual([files.mobile]);
  });

  it('a wide screen with Save-Data on loads mobile', async () => {
    expect(await loaded({ viewport: { width: 1280, height: 800 } }, () => {
      Object.defineProperty(navigator, 'deviceMemory', { get: () => 8 });
      Object.defineProperty(navigator, 'connection', { get: () => ({ saveData: true, effectiveType: '4g' }) });
    })).toEqual([files.mobile]);
  });
});
