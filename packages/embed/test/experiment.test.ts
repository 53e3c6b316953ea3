import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../server/src/test/app.js';
import { armFor } from '../src/features/experiment.js';
import { allowOrigins, assertBuilt, launchChromium, productWithModel, startApi, startShop, waitFor, type Api, type Shop } from './harness.js';

const { jStat } = createRequire(import.meta.url)('jstat') as { jStat: { binomial: { cdf(k: number, n: number, p: number): number } } };

const VIEWERS = 200;
/** Every fifth viewer buys, through `element.track()` on the page. */
const buys = (i: number) => i % 5 === 0;

let api: Api;
let shop: Shop;
let browser: Browser;
let context: BrowserContext;
let org: Api['t']['org'];
let products: string[];
let experimentId: string;
const sentViews = new Set<string>();

beforeAll(async () => {
  assertBuilt();
  api = await startApi();
  shop = await startShop(api.base);
  org = api.t.org;
  await allowOrigins(api, org, [shop.origin]);
  products = [await productWithModel(api, org, 'published'), await productWithModel(api, org, 'published')];
  const res = await api.t.app.inject({
    method: 'POST',
    url: '/v1/experiments',
    headers: bearer(org.secret_key),
    payload: { name: 'Does 3D sell stools?', product_ids: products, arms: { '3d': 0.5, poster: 0.5 } },
  });
  expect(res.statusCode, res.body).toBe(201);
  experimentId = res.json().id;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 640, height: 720 } });
  // The view's one-second dwell and the beacon batch run on the page's timers: a fake clock steps them at once.
  await context.clock.install({ time: Date.now() });
  // The 3d arm's model is left downloading: drawing it is the viewer tests' concern, and SwiftShader would spend
  // seconds of CPU on every poster-to-3d switch of 200 viewers. The element is in the 3d arm all the same.
  await context.route('**/*.glb', () => {});
  // Which views have left the page, so each viewer's step ends once its views are on their way.
  await context.route('**/v1/beacon', (route) => {
    const body = route.request().method() === 'POST' ? route.request().postDataJSON() : null;
    for (const e of body?.events ?? []) if (e.type === 'view') sentViews.add(`${e.viewer_id} ${e.product_id}`);
    return route.continue();
  });
  // The pages' first load is the first simulated viewer already, not a stray random one.
  await context.addInitScript(() => localStorage.getItem('plinth:viewer_id') || localStorage.setItem('plinth:viewer_id', 'v_sim_0'));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await api?.close();
});

async function open(productId: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(shop.pageUrl(shop.origin, { 'product-id': productId, 'publishable-key': org.publishable_key, 'api-base': api.base }));
  await waitFor(() => page.locator('service-model').evaluate((el: any) => el.arm !== null));
  return page;
}

/**
 * Steps the pages' clock past the view's dwell and the batch window until the viewer's views (of the products `on`) have been sent.
 * The dwell starts when the page's IntersectionObserver reports, on a real frame, so a step may need a second go.
 */
async function viewsSent(viewerId: string, on: string[]): Promise<void> {
  const done = () => on.every((p) => sentViews.has(`${viewerId} ${p}`));
  for (let step = 0; step < 20 && !done(); step++) {
    await context.clock.runFor(step === 0 ? 1_850 : 400);
    await waitFor(async () => done(), 150, 10).catch(() => undefined);
  }
  expect(done(), `the views of ${viewerId} were sent`).toBe(true);
}

/** The arm the element shows once it has (re)loaded, with what is in its frame. */
const shown = (page: Page) =>
  waitFor(() =>
    page.locator('service-model').evaluate(async (el: any) => {
      if (el.arm === null) return null;
      // An observer made now reports after the element's own (made when it showed the arm), in the same task.
      await new Promise<void>((resolve) => {
        const io = new IntersectionObserver(() => (io.disconnect(), resolve()));
        io.observe(el);
      });
      const root = el.shadowRoot as ShadowRoot;
      const viewer = root.querySelector('model-viewer');
      const canvases = root.querySelectorAll('canvas').length + (viewer?.shadowRoot?.querySelectorAll('canvas').length ?? 0);
      const visible = (e: Element | null | undefined) => !!e && (e as HTMLElement).offsetParent !== null;
      return {
        arm: el.arm as '3d' | 'poster',
        viewer: !!viewer,
        canvases,
        arButton: visible(root.querySelector('.ar-button:not(.qr-button)')) || visible(root.querySelector('.qr-button')) || !!viewer?.querySelector('[slot=ar-button]'),
        poster: visible(root.querySelector('.poster')) ? (root.querySelector('.poster') as HTMLImageElement).src : null,
      };
    }),
    15_000,
    5,
  );

describe('<service-model> in a running experiment', { timeout: 240_000 }, () => {
  it('splits 200 viewers near 50/50 by a stable hash, shows the poster arm without 3D or AR, and the page’s conversions reach the results', async () => {
    const pages = [await open(products[0]), await open(products[1])];
    const arms: Array<'3d' | 'poster'> = [];
    let checkedPoster = false;
    let checked3d = false;
    for (let i = 0; i < VIEWERS; i++) {
      const viewerId = `v_sim_${i}`;
      // One browser, one shop origin: both pages read the same localStorage, so they see the same viewer.
      await pages[0].evaluate((id) => localStorage.setItem('plinth:viewer_id', id), viewerId);
      // Every viewer on the first product's page; every fourth also on the second's, which must show the same arm.
      const visited = i % 4 === 0 ? pages : [pages[0]];
      const seen = [];
      for (const page of visited) {
        // The page in front draws frames, and with them reports what its observers see.
        await page.bringToFront();
        await page.locator('service-model').evaluate((el: any) => el.reload());
        seen.push(await shown(page));
      }
      const arm = seen[0].arm;
      arms.push(arm);
      for (const s of seen) expect(s.arm, `viewer ${i} sees one arm on every page`).toBe(arm);
      expect(arm).toBe(armFor(viewerId, { id: experimentId, arms: { '3d': 0.5, poster: 0.5 } }));
      if (arm === 'poster') {
        for (const s of seen) expect(s).toMatchObject({ viewer: false, canvases: 0, arButton: false, poster: expect.stringMatching(/thumb\.webp$/) });
        checkedPoster = true;
      } else {
        for (const s of seen) expect(s).toMatchObject({ viewer: true, poster: null });
        checked3d = true;
      }
      if (buys(i)) await pages[0].locator('service-model').evaluate((el: any) => el.track('purchase', { value: 25, currency: 'EUR' }));
      // Past the one-second dwell and the batch window: each page sends its view before the next viewer arrives.
      await viewsSent(viewerId, products.slice(0, visited.length));
    }
    expect(checkedPoster && checked3d).toBe(true);

    // The same viewers after a full reload: the arm is kept in nothing but the viewer id.
    for (const i of [0, 1, 2, 3, 4, 5]) {
      await pages[1].bringToFront();
      await pages[1].evaluate((id) => localStorage.setItem('plinth:viewer_id', id), `v_sim_${i}`);
      await pages[1].reload();
      expect((await shown(pages[1])).arm).toBe(arms[i]);
    }

    // Near 50/50: a two-sided exact binomial test of the 3d count against p = 0.5. The experiment's id is new each
    // run, so the count is a fresh draw: at 0.01 a fair hash fails one run in a hundred (one CI run did, 119 of 200).
    // At 0.001 it fails one in a thousand; the hash's fairness over 2,000 experiments is experiment.units.test.ts's.
    const k = arms.filter((a) => a === '3d').length;
    const pValue = Math.min(1, 2 * Math.min(jStat.binomial.cdf(k, VIEWERS, 0.5), 1 - jStat.binomial.cdf(k - 1, VIEWERS, 0.5)));
    expect(pValue, `${k} of ${VIEWERS} in 3d`).toBeGreaterThan(0.001);

    // Past the batch window, then the API's answer once every viewer's events are in.
    await context.clock.runFor(2_000);
    const expected = (['3d', 'poster'] as const).map((arm) => {
      const members = arms.map((a, i) => [a, i] as const).filter(([a]) => a === arm);
      const converters = members.filter(([, i]) => buys(i)).length;
      return { arm, viewers: members.length, converters, value: 25 * converters };
    });
    const read = async () =>
      (await api.t.app.inject({ method: 'GET', url: `/v1/experiments/${experimentId}/results`, headers: bearer(org.secret_key) })).json();
    const sum = (body: any, field: 'viewers' | 'converters') => body.arms.reduce((n: number, a: any) => n + a[field], 0);
    // Beacons are in flight for a moment after the last step; a shortfall that stays is a failure, shown in full.
    // The wait is a hang guard. With 10 s, one full run on a slow 2-core machine ended with 106 of 107 poster viewers
    // counted; whether the last came late or never is not known, and a loss still fails here after 30 s. A beacon
    // the network failed is sent again 3 s later on the pages' clock, which only moves when stepped: each poll
    // steps it a second, as a shopper's clock would run on.
    const results = await waitFor(async () => {
      const body = await read();
      if (sum(body, 'viewers') === VIEWERS && sum(body, 'converters') === VIEWERS / 5) return body;
      await context.clock.runFor(1_000);
      return false;
    }, 30_000, 250).catch(read);
    const beacons = api.calls.filter((c) => c.method === 'POST' && c.path === '/v1/beacon');
    const refused = beacons.filter((c) => c.status !== 202).map((c) => c.status);
    expect(
      results.arms.map((a: any) => ({ arm: a.arm, viewers: a.viewers, converters: a.converters, value: a.value })),
      `${beacons.length} beacons answered, ${refused.length} not 202 (${refused.join(', ')}); ${sentViews.size} views seen leaving the pages`,
    ).toEqual(expected);
    // The pages' clock ran ahead of this one by every step it was moved on (up to the five minutes of skew the
    // server believes), so their conversions may carry times past this process's now: the window reaches past it.
    const span = `start=${new Date(Date.now() - 3_600_000).toISOString()}&end=${new Date(Date.now() + 3_600_000).toISOString()}`;
    const { totals } = (await api.t.app.inject({ method: 'GET', url: `/v1/usage?granularity=hour&${span}`, headers: bearer(org.secret_key) })).json();
    expect(totals.conversion).toBe(VIEWERS / 5);
  });
});
