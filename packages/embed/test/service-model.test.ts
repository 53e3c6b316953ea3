import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allowOrigins,
  assertBuilt,
  elementWarnings,
  freePort,
  launchChromium,
  productWithModel,
  startApi,
  startShop,
  usage,
  waitFor,
  waitReady,
  type Api,
  type Shop,
} from './harness.js';

let api: Api;
let shop: Shop;
let browser: Browser;
let org: Api['t']['org'];
let published: string;

beforeAll(async () => {
  assertBuilt();
  api = await startApi();
  shop = await startShop(api.base);
  org = api.t.org;
  await allowOrigins(api, org, [shop.origin]);
  published = await productWithModel(api, org, 'published');
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await api?.close();
});

async function open(origin: string, productId: string, extra: Record<string, string> = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 640, height: 720 } });
  const page = await context.newPage();
  warnings.set(page, elementWarnings(page));
  await page.goto(shop.pageUrl(origin, { 'product-id': productId, 'publishable-key': org.publishable_key, 'api-base': api.base, ...extra }));
  return page;
}

const warnings = new WeakMap<Page, string[]>();
const ready = (page: Page) => waitReady(page, warnings.get(page)!);
const state = (page: Page) => page.locator('service-model').getAttribute('state');
const message = (page: Page) => page.locator('service-model').evaluate((el) => el.shadowRoot!.querySelector('[part=message]')!.textContent);
const events = (page: Page) => page.evaluate(() => (window as unknown as { __events: Array<{ type: string; detail: any }> }).__events);
const pageErrors = (page: Page) => page.evaluate(() => (window as unknown as { __pageErrors?: string[] }).__pageErrors ?? []);

const SLOW = { timeout: 120_000 };

/** Standard deviation of the screenshot's pixels, over all channels: a blank area is close to 0. */
async function pixelSpread(png: Buffer): Promise<number> {
  const { channels } = await sharp(png).stats();
  return Math.max(...channels.slice(0, 3).map((c) => c.stdev));
}

describe('on an allowed origin', SLOW, () => {
  it('can fetch the model file from the shop\'s origin, as model-viewer does', async () => {
    const res = await api.t.app.inject({ method: 'GET', url: `/v1/products/${published}`, headers: { authorization: `Bearer ${org.secret_key}` } });
    const glb = await fetch(res.json().model_url, { headers: { origin: shop.origin } });
    expect(glb.status).toBe(200);
    // Without it the browser refuses the GLB, and the element can only show its model error.
    expect(glb.headers.get('access-control-allow-origin') ?? '(none)', 'GET /files/* must send Access-Control-Allow-Origin').toMatch(/^(\*|http:\/\/localhost:\d+)$/);
  });

  it('shows the model, and counts exactly one view once it has been half visible for a second', async () => {
    const page = await open(shop.origin, published);
    await ready(page);
    const loaded = (await events(page)).filter((e) => e.type === 'service-model:load');
    expect(loaded).toHaveLength(1);
    expect(loaded[0].detail).toMatchObject({ productId: published, product: { id: published, viewer: { exposure: 1 } } });

    const viewer = page.locator('service-model').locator('model-viewer');
    expect(await viewer.evaluate((el: any) => el.loaded)).toBe(true);
    expect(await viewer.getAttribute('ar-modes')).toBe('webxr scene-viewer quick-look');
    expect(await viewer.getAttribute('poster')).toMatch(/\/files\/.+thumb\.webp$/);
    // iOS gets the server's USDZ for Quick Look.
    expect(await viewer.getAttribute('ios-src')).toMatch(/\/files\/.+\.usdz$/);
    const shot = await page.locator('service-model').screenshot();
    expect(await pixelSpread(shot)).toBeGreaterThan(8);

    const totals = await waitFor(async () => {
      const u = await usage(api, org, published);
      return u.view > 0 && u;
    });
    expect(totals).toEqual({ view: 1, ar_enter: 0, ar_session_ended: 0 });
    // Past the dwell and the batch window: still one.
    await page.waitForTimeout(2_500);
    expect(await usage(api, org, published)).toEqual({ view: 1, ar_enter: 0, ar_session_ended: 0 });

    const read = api.calls.find((c) => c.method === 'GET' && c.path === `/embed/products/${published}` && c.origin === shop.origin)!;
    const beacon = api.calls.find((c) => c.method === 'POST' && c.path === '/v1/beacon' && c.origin === shop.origin)!;
    expect(read.status).toBe(200);
    expect(beacon.status).toBe(202);
    expect(beacon.at - read.at).toBeGreaterThanOrEqual(1_000);
    expect(await pageErrors(page)).toEqual([]);
    await page.context().close();
  });

  it('does not count a view for an element that is never half visible', async () => {
    const id = await productWithModel(api, org, 'published');
    const page = await open(shop.origin, id, { style: 'margin-top: 2000px' });
    // Off screen, model-viewer waits to load the model; the projection is in, so views are being watched.
    await waitFor(() => page.locator('service-model').evaluate((el: any) => el.product !== null));
    await page.waitForTimeout(2_500);
    expect((await usage(api, org, id)).view).toBe(0);
    await page.context().close();
  });
});

describe('on an origin outside allowed_domains', SLOW, () => {
  it('shows the origin error and sends no beacon: the read is refused 403, unreadable by that origin', async () => {
    const before = api.calls.length;
    const viewsBefore = (await usage(api, org, published)).view;
    const page = await open(shop.otherOrigin, published);
    await waitFor(async () => (await state(page)) === 'error');
    expect(await message(page)).toContain('allowed_domains');
    const error = (await events(page)).find((e) => e.type === 'service-model:error')!;
    expect(error.detail).toMatchObject({ productId: published, reason: 'origin' });
    await page.waitForTimeout(2_500);

    const seen = api.calls.slice(before).filter((c) => c.origin === shop.otherOrigin);
    // The embed's preflight is answered for any origin (so a wrong key's 401 can be read); the read itself is refused.
    const reads = seen.filter((c) => c.method === 'GET' && c.path === `/embed/products/${published}`);
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect([r.status, r.allowOrigin]).toEqual([403, null]);
    expect(seen.filter((c) => c.path.startsWith('/v1/'))).toEqual([]);
    expect((await usage(api, org, published)).view).toBe(viewsBefore);
    expect(await pageErrors(page)).toEqual([]);
    await page.context().close();
  });

  it('shows the same state when another project allows the origin: the API answers the read 403', async () => {
    const otherShop = await startShop(api.base);
    const other = await api.t.bootstrap({ allowedDomains: [otherShop.origin] });
    // Preflights are answered from a list of allowed origins the API caches for a few seconds.
    await waitFor(async () => {
      const pre = await api.t.app.inject({ method: 'OPTIONS', url: `/v1/products/${published}`, headers: { origin: otherShop.origin } });
      return !!pre.headers['access-control-allow-origin'];
    }, 10_000, 250);
    const before = api.calls.length;
    try {
      const page = await open(otherShop.origin, published);
      await waitFor(async () => (await state(page)) === 'error');
      expect((await events(page)).find((e) => e.type === 'service-model:error')!.detail.reason).toBe('origin');
      const reads = api.calls.slice(before).filter((c) => c.method === 'GET' && c.path === `/embed/products/${published}`);
      expect(reads.length).toBeGreaterThan(0);
      for (const r of reads) expect(r.status).toBe(403);
      expect(api.calls.slice(before).filter((c) => c.path === '/v1/beacon')).toEqual([]);
      await page.context().close();
    } finally {
      await otherShop.close();
    }
    expect(other.org_id).not.toBe(org.org_id);
  });
});

describe('states', SLOW, () => {
  it('shows the not-found state for an unpublished product', async () => {
    const draft = await productWithModel(api, org, 'draft');
    const page = await open(shop.origin, draft);
    await waitFor(async () => (await state(page)) === 'error');
    expect(await message(page)).toBe('This product isn’t available.');
    expect((await events(page)).find((e) => e.type === 'service-model:error')!.detail).toMatchObject({ reason: 'not_found', status: 404 });
    const shot = await page.locator('service-model').screenshot();
    expect(shot.length).toBeGreaterThan(0);
    await page.waitForTimeout(2_000);
    expect(await usage(api, org, draft)).toEqual({ view: 0, ar_enter: 0, ar_session_ended: 0 });
    await page.context().close();
  });

  it('is quietly empty without a product id, and loads once one is set as a property', async () => {
    const page = await open(shop.origin, '');
    await waitFor(async () => (await state(page)) === 'empty');
    expect(await message(page)).toBe('');
    await page.locator('service-model').evaluate((el, id) => ((el as any).productId = id), published);
    await ready(page);
    expect(await page.locator('service-model').getAttribute('product-id')).toBe(published);
    expect(await pageErrors(page)).toEqual([]);
    await page.context().close();
  });

  it('reports a network failure with a retry, without throwing into the page', async () => {
    // The script still comes from the API; the element is pointed at a port nobody listens on.
    const context = await browser.newContext();
    const page = await context.newPage();
    const dead = `http://127.0.0.1:${await freePort()}`;
    await page.goto(shop.pageUrl(shop.origin, { 'product-id': published, 'publishable-key': org.publishable_key, 'api-base': dead }));
    await waitFor(async () => (await state(page)) === 'error');
    expect((await events(page)).find((e) => e.type === 'service-model:error')!.detail.reason).toBe('network');
    expect(await page.locator('service-model').evaluate((el) => (el.shadowRoot!.querySelector('[part=retry]') as HTMLElement).hidden)).toBe(false);
    // The same bundle again, under its versioned URL: model-viewer and the element are already defined.
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    await page.addScriptTag({ type: 'module', url: `${api.base}/embed/v${version}.js` });
    await page.waitForTimeout(500);
    expect(await pageErrors(page)).toEqual([]);
    await context.close();
  });
});
