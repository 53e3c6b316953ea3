import { processModelBuffer } from '@plinth/media';
import { glbBytes, variantBoxDocument } from '@plinth/media/test-support';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../server/src/test/app.js';
import { seedProduct } from '../../server/src/test/products.js';
import { inTransaction } from '../../server/src/platform/db/index.js';
import { storeModel, storedModel } from '../../server/src/modules/ingest/ingest-model.js';
import { productChanged } from '../../server/src/modules/products/products.lifecycle.js';
import { findProduct } from '../../server/src/modules/products/products.repo.js';
import { allowOrigins, assertBuilt, elementWarnings, launchChromium, startApi, startShop, waitFor, waitReady, type Api, type Shop } from './harness.js';

/**
 * DESIGN section 15 in a real browser against a real API: variants (attribute, picker, ios-src), hotspots,
 * dimensions in the locale's units, the AR attributes and the Quick Look call to action. One page, one load.
 */
let api: Api;
let shop: Shop;
let browser: Browser;
let productId: string;
let usdzVariants: Record<string, string>;

const CTA = { title: 'Oak chair', subtitle: 'Free delivery', price: '$129', button_label: 'Buy now', url: 'https://shop.example/chair' };

beforeAll(async () => {
  assertBuilt();
  api = await startApi();
  shop = await startShop(api.base);
  const org = api.t.org;
  await allowOrigins(api, org, [shop.origin]);
  // The model goes through the import pipeline and is stored as an import stores it.
  productId = await seedProduct(api.t, org.org_id, { status: 'published', title: 'Oak chair' });
  const model = await processModelBuffer(await glbBytes(variantBoxDocument([0.5, 0.4, 0.3]).doc), null, async () => {
    throw new Error('self-contained');
  });
  const deps = api.t.deps;
  const product = (await findProduct(deps.database.db, productId, [org.org_id]))!;
  const keys = await storeModel(deps, product, model);
  await inTransaction(deps.database.db, (trx) => productChanged(deps, trx, productId, { model: storedModel(keys, model, product.model, 'imported') }, new Date().toISOString()));
  const settings = {
    default_variant: 'Red',
    variant_picker: true,
    hotspots: [{ id: 'legs', position: [0.2, 0.15, 0.15], normal: [0, 0, 1], label: 'Legs', text: 'Solid oak legs.' }],
    show_dimensions: true,
    ar_placement: 'wall',
    ar_scale: 'fixed',
    ar_call_to_action: CTA,
  };
  const res = await api.t.app.inject({ method: 'PATCH', url: `/v1/products/${productId}/model`, headers: bearer(org.secret_key), payload: { settings } });
  if (res.statusCode !== 200) throw new Error(`PATCH model: ${res.body}`);
  usdzVariants = res.json().model.delivery.usdz_variants;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await api?.close();
});

/** Pixels of the element whose colour is clearly led by one channel. */
async function colourCounts(page: Page) {
  const png = await page.locator('service-model').screenshot();
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const counts = { red: 0, green: 0, blue: 0 };
  for (let i = 0; i < data.length; i += info.channels) {
    const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
    if (r > g + 40 && r > b + 40) counts.red++;
    else if (g > r + 40 && g > b + 40) counts.green++;
    else if (b > r + 40 && b > g + 40) counts.blue++;
  }
  return counts;
}
const leads = (page: Page, colour: 'red' | 'green' | 'blue') =>
  waitFor(async () => {
    const c = await colourCounts(page);
    return c[colour] > 300 && c[colour] > 5 * Math.max(...Object.values(c).filter((_, i) => ['red', 'green', 'blue'][i] !== colour)) ? c : null;
  }, 30_000, 500);

describe('<service-model> variants, hotspots, dimensions and AR', { timeout: 240_000 }, () => {
  it('shows them, by role and name', async () => {
    // en-US and no units set: imperial, from the locale.
    const context = await browser.newContext({ viewport: { width: 640, height: 720 }, locale: 'en-US' });
    const page = await context.newPage();
    const warnings = elementWarnings(page);
    const beacons: string[] = [];
    page.on('request', (r) => r.url().endsWith('/v1/beacon') && beacons.push(r.postData() ?? ''));
    await page.goto(shop.pageUrl(shop.origin, { 'product-id': productId, 'publishable-key': api.t.org.publishable_key, 'api-base': api.base, variant: 'Blue' }));
    await waitReady(page, warnings);
    const viewer = page.locator('service-model').locator('model-viewer');

    // variant="Blue" wins over the default (Red): blue on screen, and Quick Look gets the blue USDZ with the banner.
    await leads(page, 'blue');
    const iosSrc = new URL((await viewer.getAttribute('ios-src'))!);
    expect(iosSrc.href.split('#')[0]).toBe(usdzVariants.Blue);
    expect(Object.fromEntries(new URLSearchParams(iosSrc.hash.slice(1)))).toEqual({
      callToAction: CTA.button_label,
      checkoutTitle: CTA.title,
      checkoutSubtitle: CTA.subtitle,
      price: CTA.price,
    });
    expect(await viewer.getAttribute('ar-placement')).toBe('wall');
    expect(await viewer.getAttribute('ar-scale')).toBe('fixed');

    // The picker switches the look, and ios-src follows.
    const picker = page.getByRole('radiogroup', { name: 'Variant' });
    expect(await picker.getByRole('radio').count()).toBe(3);
    await expect.poll(() => picker.getByRole('radio', { name: 'Blue' }).isChecked()).toBe(true);
    await picker.getByRole('radio', { name: 'Green' }).check();
    await leads(page, 'green');
    expect((await viewer.getAttribute('ios-src'))!.split('#')[0]).toBe(usdzVariants.Green);
    // The page can switch it too.
    await page.locator('service-model').evaluate((el) => el.setAttribute('variant', 'Red'));
    await leads(page, 'red');

    // A hotspot is a button named by its label that opens its text.
    const legs = page.getByRole('button', { name: 'Legs' });
    await expect.poll(() => legs.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByText('Solid oak legs.').isVisible()).toBe(false);
    await legs.click();
    expect(await page.getByText('Solid oak legs.').isVisible()).toBe(true);
    expect(await legs.getAttribute('aria-expanded')).toBe('true');

    // The real size, 0.5 × 0.4 × 0.3 m, in inches.
    for (const text of ['19.7 in', '15.7 in', '11.8 in']) await expect.poll(() => page.getByText(text, { exact: true }).count()).toBe(1);

    // Safari reports a tap on the Quick Look banner's button; the shop's page opens and the tap is counted.
    await context.route('https://shop.example/**', (route) => route.fulfill({ contentType: 'text/html', body: '<title>Oak chair</title>' }));
    const opened = context.waitForEvent('page');
    await viewer.evaluate((el) => el.dispatchEvent(new CustomEvent('quick-look-button-tapped')));
    const shopPage = await opened;
    await shopPage.waitForLoadState();
    expect(shopPage.url()).toBe(CTA.url);

    await page.evaluate(() => dispatchEvent(new Event('pagehide')));
    await waitFor(async () => ['variant_change', 'hotspot_open', 'ar_cta_tap'].every((type) => beacons.some((b) => b.includes(`"${type}"`))), 10_000);
    await context.close();
  });
});
