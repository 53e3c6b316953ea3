import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../server/src/test/app.js';
import { allowOrigins, assertBuilt, elementWarnings, launchChromium, productWithModel, startApi, startShop, usage, waitFor, waitReady, type Api, type Shop } from './harness.js';

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

async function open(productId: string, initScript?: () => void): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  const warnings = elementWarnings(page);
  if (initScript) await page.addInitScript(initScript);
  await page.goto(shop.pageUrl(shop.origin, { 'product-id': productId, 'publishable-key': org.publishable_key, 'api-base': api.base }));
  // AR starts from a loaded model.
  await waitReady(page, warnings);
  return page;
}

const events = (page: Page) => page.evaluate(() => (window as unknown as { __events: Array<{ type: string; detail: any }> }).__events);

/** What the API stored, duration included (GET /v1/usage reports counts only). */
async function storedAr(productId: string) {
  return api.t.deps.database.db
    .selectFrom('beacon_events')
    .select(['type', 'duration_ms', 'viewer_id'])
    .where('subject_id', '=', productId)
    .where('type', 'in', ['ar_enter', 'ar_session_ended'])
    .orderBy('occurred_at')
    .execute();
}

/** AR cannot run headless: the test speaks for model-viewer through its own `ar-status` event. */
function arStatus(page: Page, status: string) {
  return page.locator('service-model').evaluate((el, s) => {
    el.shadowRoot!.querySelector('model-viewer')!.dispatchEvent(new CustomEvent('ar-status', { detail: { status: s } }));
  }, status);
}

describe('AR sessions', { timeout: 120_000 }, () => {
  it('counts ar_enter on session-started and ar_session_ended with its duration on not-presenting', async () => {
    const id = await productWithModel(api, org, 'published');
    const page = await open(id);
    await arStatus(page, 'session-started');
    await page.waitForTimeout(700);
    await arStatus(page, 'object-placed');
    await arStatus(page, 'not-presenting');
    // A second not-presenting (model-viewer sends one on reset) ends nothing.
    await arStatus(page, 'not-presenting');

    const totals = await waitFor(async () => {
      const u = await usage(api, org, id);
      return u.ar_session_ended > 0 && u;
    });
    expect(totals).toMatchObject({ ar_enter: 1, ar_session_ended: 1 });
    const stored = await storedAr(id);
    expect(stored.map((r) => r.type)).toEqual(['ar_enter', 'ar_session_ended']);
    expect(Number(stored[1].duration_ms)).toBeGreaterThanOrEqual(650);
    expect(Number(stored[1].duration_ms)).toBeLessThan(10_000);
    // One anonymous viewer for the tab's session.
    expect(stored[0].viewer_id).toMatch(/^v_/);
    expect(stored[1].viewer_id).toBe(stored[0].viewer_id);

    const ar = (await events(page)).filter((e) => e.type.startsWith('service-model:ar'));
    expect(ar.map((e) => e.type)).toEqual(['service-model:ar-start', 'service-model:ar-end']);
    expect(ar[1].detail).toMatchObject({ productId: id, mode: 'webxr', inferred: false });
    await page.context().close();
  });

  it('on iOS, counts the Quick Look tap and infers the end when the page is visible again', async () => {
    const id = await productWithModel(api, org, 'published');
    // Headless Chromium is not Safari: Quick Look support and page visibility are stood in for.
    const page = await open(id, () => {
      const supports = DOMTokenList.prototype.supports;
      DOMTokenList.prototype.supports = function (token: string) {
        return token === 'ar' || supports.call(this, token);
      };
      let visibility: DocumentVisibilityState = 'visible';
      Object.defineProperty(document, 'visibilityState', { get: () => visibility, configurable: true });
      (window as any).__setVisibility = (v: DocumentVisibilityState) => {
        visibility = v;
        document.dispatchEvent(new Event('visibilitychange'));
      };
    });
    await page.locator('service-model').evaluate((el) => (el.shadowRoot!.querySelector('[part=ar-button]') as HTMLElement).click());
    await page.evaluate(() => (window as any).__setVisibility('hidden'));
    await page.waitForTimeout(600);
    await page.evaluate(() => (window as any).__setVisibility('visible'));

    const totals = await waitFor(async () => {
      const u = await usage(api, org, id);
      return u.ar_session_ended > 0 && u;
    });
    expect(totals).toMatchObject({ ar_enter: 1, ar_session_ended: 1 });
    const stored = await storedAr(id);
    expect(Number(stored[1].duration_ms)).toBeGreaterThanOrEqual(550);
    const end = (await events(page)).find((e) => e.type === 'service-model:ar-end')!;
    expect(end.detail).toMatchObject({ mode: 'quick-look', inferred: true });
    await page.context().close();
  });

  it('leaves the inferred flag out of the beacon, because the API refuses unknown fields', async () => {
    // The reason the flag travels only on the DOM event (see docs/embed.md).
    const res = await api.t.app.inject({
      method: 'POST',
      url: '/v1/beacon',
      headers: { ...bearer(org.publishable_key), origin: shop.origin },
      payload: { events: [{ type: 'ar_session_ended', product_id: 'prod_x', duration_ms: 5, inferred: true }] },
    });
    expect(res.statusCode).toBe(422);
  });
});
