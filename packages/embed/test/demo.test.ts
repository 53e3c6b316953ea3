import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, elementWarnings, launchChromium, productWithModel, startApi, waitReady, type Api } from './harness.js';

let api: Api;
let browser: Browser;

beforeAll(async () => {
  assertBuilt();
  api = await startApi();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

describe('the demo page', { timeout: 120_000 }, () => {
  it('shows a published demo product from the versioned bundle, with api-base taken from the script', async () => {
    // What `plinth serve` makes on an empty data dir: the demo user's org, allowing the server's own origin.
    const demo = await api.t.bootstrap({ email: 'demo@plinth.local', allowedDomains: [api.base] });
    const id = await productWithModel(api, demo, 'published');
    const page = await (await browser.newContext()).newPage();
    const warnings = elementWarnings(page);
    const scripts: Array<{ url: string; status: number; cache: string | undefined; type: string | undefined }> = [];
    page.on('response', (r) => {
      // The bundle only: the element's own read of /embed/products/{id} is checked through api.calls below, and the
      // decoders (/embed/decoders/…) are not the bundle.
      if (/\/embed(\/v[^/?]+)?\.js(\?|$)/.test(r.url())) scripts.push({ url: r.url(), status: r.status(), cache: r.headers()['cache-control'], type: r.headers()['content-type'] });
    });
    const res = await page.goto(`${api.base}/demo/${id}`);
    expect(res!.status()).toBe(200);
    await waitReady(page, warnings);

    expect(scripts).toEqual([
      { url: expect.stringMatching(/\/embed\/v\d+\.\d+\.\d+.*\.js$/), status: 200, cache: 'public, max-age=31536000, immutable', type: 'text/javascript; charset=utf-8' },
    ]);
    const key = await page.locator('service-model').getAttribute('publishable-key');
    expect(key).toMatch(/^pk_/);
    expect(key).not.toBe(demo.publishable_key);
    expect(api.calls.some((c) => c.method === 'GET' && c.path === `/embed/products/${id}` && c.status === 200)).toBe(true);
    await page.context().close();
  });

  it('is a 404 page for a product outside the demo organization', async () => {
    const id = await productWithModel(api, api.t.org, 'published');
    const page = await (await browser.newContext()).newPage();
    const res = await page.goto(`${api.base}/demo/${id}`);
    expect(res!.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Not found');
    await page.context().close();
  });
});
