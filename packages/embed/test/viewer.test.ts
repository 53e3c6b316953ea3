import { writeFileSync } from 'node:fs';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { renderSVG } from 'uqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../server/src/test/app.js';
import { renderPoster } from '../../server/src/modules/ingest/model-poster.js';
import { loadProduct } from '../../server/src/modules/products/products.repo.js';
import { allowOrigins, assertBuilt, boxGlb, elementWarnings, launchChromium, productWithModel, startApi, startShop, waitFor, waitReady, type Api, type Shop } from './harness.js';

let api: Api;
let shop: Shop;
let browser: Browser;
let org: Api['t']['org'];

beforeAll(async () => {
  assertBuilt();
  api = await startApi();
  shop = await startShop(api.base);
  org = api.t.org;
  await allowOrigins(api, org, [shop.origin]);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await api?.close();
});

const SLOW = { timeout: 180_000 };
const shadow = (page: Page, selector: string) => page.locator('service-model').locator(selector);
const state = (page: Page) => page.locator('service-model').getAttribute('state');
const message = (page: Page) => page.locator('service-model').evaluate((el) => el.shadowRoot!.querySelector('[part=message]')!.textContent);
const errorEvent = (page: Page) =>
  page.evaluate(() => (window as unknown as { __events: Array<{ type: string; detail: any }> }).__events.find((e) => e.type === 'service-model:error')?.detail);

async function open(productId: string, key: string, opts: { holdModel?: Promise<void> } = {}): Promise<{ page: Page; warnings: string[] }> {
  const context = await browser.newContext({ viewport: { width: 640, height: 720 } });
  const page = await context.newPage();
  const warnings = elementWarnings(page);
  if (opts.holdModel) {
    const hold = opts.holdModel;
    await page.route(/\/files\/.+\.glb$/, async (route) => {
      await hold;
      await route.continue();
    });
  }
  await page.goto(shop.pageUrl(shop.origin, { 'product-id': productId, 'publishable-key': key, 'api-base': api.base }));
  return { page, warnings };
}

/** Mean brightness (0–255) of the opaque pixels of an image: the model, without the background. */
async function modelBrightness(png: Buffer, background: { r: number; g: number; b: number } | null): Promise<number> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  let sum = 0;
  let n = 0;
  for (let i = 0; i < data.length; i += info.channels) {
    const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
    if (a < 250) continue;
    if (background && Math.abs(r - background.r) + Math.abs(g - background.g) + Math.abs(b - background.b) < 12) continue;
    sum += 0.2126 * r + 0.7152 * g + 0.0722 * b;
    n++;
  }
  return n ? sum / n : 0;
}

describe('viewer settings, poster and progress', SLOW, () => {
  it('shows the poster with a progress bar while the GLB downloads, then the model with the saved settings', async () => {
    const id = await productWithModel(api, org, 'published');
    // A real poster, rendered from the same GLB the way an import renders one.
    const product = (await loadProduct(api.t.deps.database.db, id))!;
    const posterKey = await renderPoster(api.t.deps, product, await boxGlb());
    expect(posterKey).toBeTruthy();
    await api.t.deps.database.db.updateTable('products').set({ thumbnail_key: posterKey }).where('id', '=', id).execute();
    const embed = (await api.t.app.inject({ method: 'GET', url: `/embed/products/${id}`, headers: { ...bearer(org.publishable_key), origin: shop.origin } })).json();

    let release!: () => void;
    let { page, warnings } = await open(id, org.publishable_key, { holdModel: new Promise<void>((r) => (release = r)) });
    let viewer = shadow(page, 'model-viewer');
    await waitFor(async () => (await viewer.getAttribute('poster')) === embed.poster_url);
    // While the model is held back: loading, the poster on screen, the progress bar showing.
    expect(await state(page)).toBe('loading');
    await waitFor(() => shadow(page, '[part=progress]').isVisible());
    await page.waitForTimeout(1_000);
    const posterShot = await page.locator('service-model').screenshot();
    writeFileSync(`${process.env.PLINTH_EMBED_SHOTS ?? '/tmp'}/embed-poster.png`, posterShot);
    const frame = { r: 0xf4, g: 0xf4, b: 0xf1 };
    expect(await modelBrightness(posterShot, frame)).toBeGreaterThan(20);

    release();
    await waitReady(page, warnings, 150_000);
    expect(await shadow(page, '[part=progress]').isVisible()).toBe(false);
    await page.mouse.move(0, 0);
    await page.waitForTimeout(1_000);
    const liveShot = await page.locator('service-model').screenshot();
    writeFileSync(`${process.env.PLINTH_EMBED_SHOTS ?? '/tmp'}/embed-live.png`, liveShot);
    // The poster stands in for the live model: rendered under the same tone mapping and exposure, about as bright.
    const [posterLight, liveLight] = [await modelBrightness(posterShot, frame), await modelBrightness(liveShot, frame)];
    console.log(`model brightness: poster ${posterLight.toFixed(1)}, live model ${liveLight.toFixed(1)} (exposure 1)`);
    expect(posterLight / liveLight).toBeGreaterThan(0.85);
    expect(posterLight / liveLight).toBeLessThan(1.15);

    // Settings saved with the model reach the element on its next load.
    const settings = { exposure: 1.6, shadow_intensity: 0.4, camera_orbit: '20deg 70deg auto', environment: 'neutral', auto_rotate: true };
    const patch = await api.t.app.inject({ method: 'PATCH', url: `/v1/products/${id}/model`, headers: bearer(org.secret_key), payload: { settings } });
    expect(patch.statusCode, patch.body).toBe(200);
    await page.context().close();
    // A new visitor (the last one's browser may keep the answer for its max-age).
    ({ page, warnings } = await open(id, org.publishable_key));
    viewer = shadow(page, 'model-viewer');
    await waitReady(page, warnings, 150_000);
    expect(await viewer.getAttribute('ios-src')).toBe(embed.usdz_url);
    expect(await viewer.getAttribute('ios-src')).toMatch(/\.usdz$/);
    expect(await viewer.getAttribute('camera-orbit')).toBe('20deg 70deg auto');
    expect(await viewer.getAttribute('environment-image')).toBe('neutral');
    expect(await viewer.getAttribute('auto-rotate')).toBe('');
    expect(await viewer.evaluate((el: any) => [el.exposure, el.shadowIntensity])).toEqual([1.6, 0.4]);
    await page.context().close();
  });

  it('on a desktop, the AR button shows a QR code of the page instead', async () => {
    const id = await productWithModel(api, org, 'published');
    const { page, warnings } = await open(id, org.publishable_key);
    await waitReady(page, warnings, 150_000);
    const button = shadow(page, '[part=qr-button]');
    expect(await button.isVisible()).toBe(true);
    expect(await shadow(page, '[part=qr]').isVisible()).toBe(false);
    await button.click();
    expect(await shadow(page, '[part=qr]').isVisible()).toBe(true);
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    const modules = await shadow(page, '[part=qr] .code svg path').getAttribute('d');
    // The same modules uqr makes of this page's URL: scanning it opens the product page on the phone.
    const expected = /<path[^>]* d="([^"]+)"/.exec(renderSVG(page.url(), { border: 2 }))![1];
    expect(modules).toBe(expected);
    writeFileSync(`${process.env.PLINTH_EMBED_SHOTS ?? '/tmp'}/embed-qr.png`, await page.locator('service-model').screenshot());
    await page.context().close();
  });
});

describe('a wrong key is not blamed on the site', SLOW, () => {
  for (const [what, key] of [
    ['an unknown publishable key', 'pk_live_thiskeydoesnotexist000000'],
    ['a secret key pasted into the page', () => org.secret_key],
  ] as const) {
    it(`${what} shows the key message`, async () => {
      const id = await productWithModel(api, org, 'published');
      const { page } = await open(id, typeof key === 'function' ? key() : key);
      await waitFor(async () => (await state(page)) === 'error');
      expect(await message(page)).toMatch(/^This key is not valid/);
      expect(await message(page)).not.toContain('allowed_domains');
      expect(await errorEvent(page)).toMatchObject({ reason: 'key', status: 401 });
      await page.context().close();
    });
  }
});
