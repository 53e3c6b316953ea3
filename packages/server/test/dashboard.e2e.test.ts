import { AxeBuilder } from '@axe-core/playwright';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { DASHBOARD_DIR } from '../src/modules/dashboard-web/dashboard-web.routes.js';
import { boxGlb } from '../src/test/upload-fixtures.js';
import { startReceiver, type Receiver } from '../src/test/webhook-receiver.js';
import { bearer, createTestApp, type TestApp } from '../src/test/app.js';
import { waitFor } from '../src/test/fixture-server.js';
import { productPhoto } from '../src/test/images.js';
import { seedProduct } from '../src/test/products.js';
import { registerJobHandlers } from '../src/worker.js';
import { freePort, ROOT } from './cli-harness.js';

/**
 * The dashboard driven as a person would, in a real Chromium against a real server, by accessible
 * roles and names only. With PLINTH_DASHBOARD_SCREENSHOTS=<dir> it also saves every page at desk and
 * phone width (packages/dashboard/scripts/screenshots.sh).
 */
const CHROMIUM = process.env.PLINTH_CHROMIUM_PATH || '/usr/bin/chromium';
const SHOTS = process.env.PLINTH_DASHBOARD_SCREENSHOTS ? join(ROOT, process.env.PLINTH_DASHBOARD_SCREENSHOTS) : null;
const built = existsSync(join(DASHBOARD_DIR, 'index.html'));
const ready = built && existsSync(CHROMIUM);
if (!ready) {
  console.log(`\n[plinth] dashboard e2e skipped: ${built ? `no Chromium at ${CHROMIUM}` : 'packages/dashboard/dist is not built (npm run build)'}\n`);
}

let t: TestApp;
let base: string;
let email: string;
let password: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let rx: Receiver;
let shop: Server;
let shopOrigin: string;
let modelProductId: string;
const axeFindings: string[] = [];

async function api(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) {
  const res = await t.app.inject({ method, url, headers: bearer(t.org.secret_key), ...(payload !== undefined ? { payload: payload as object } : {}) });
  return res.json();
}

/** No serious or critical violation on the page as it stands; each finding is named for the report. */
async function audit(name: string) {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  for (const v of result.violations) {
    if (v.impact === 'serious' || v.impact === 'critical') axeFindings.push(`${name}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }
}

/** Desk and phone screenshots, as palette PNGs so each stays small enough to commit. */
async function shoot(name: string, focus?: Locator) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  for (const [w, h] of [
    [1440, 900],
    [390, 844],
  ]) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(300);
    // A part further down the page is brought into view, as a person would scroll to it.
    if (focus) await focus.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    const png = await page.screenshot();
    writeFileSync(join(SHOTS, `${name}-${w}.png`), await sharp(png).png({ palette: true, quality: 90, effort: 8, compressionLevel: 9 }).toBuffer());
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

async function visit(link: string, heading: string) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

beforeAll(async () => {
  if (!ready) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ PUBLIC_URL: base, PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1', PLINTH_WEBHOOK_RETRY_SCALE: '0.001' });
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
  await t.app.listen({ port, host: '127.0.0.1' });
  const owner = await t.member(t.org.org_id, 'owner');
  email = owner.email;
  password = owner.password;
  rx = await startReceiver();
  // A shop page on another origin with the embed: the view it reports is what the usage page shows.
  shop = createServer((req, res) => {
    const id = new URL(req.url ?? '/', 'http://x').searchParams.get('id') ?? '';
    const key = new URL(req.url ?? '/', 'http://x').searchParams.get('key') ?? '';
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>Shop</title><script type="module" src="${base}/embed.js"></script>
<service-model product-id="${id}" publishable-key="${key}" api-base="${base}" style="display:block;width:600px;height:400px"></service-model>`);
  });
  await new Promise<void>((r) => shop.listen(0, '127.0.0.1', () => r()));
  shopOrigin = `http://127.0.0.1:${(shop.address() as { port: number }).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  context = await browser.newContext({ viewport: { width: 1440, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await rx?.close();
  await new Promise((r) => (shop ? shop.close(r) : r(null)));
});

describe.skipIf(!ready)('the dashboard in Chromium', { timeout: 300_000 }, () => {
  // A failed step leaves a picture of the page behind, and closes any dialog so later steps start clean.
  beforeEach((ctx) => {
    onTestFailed(async () => {
      const file = join(tmpdir(), `plinth-dashboard-failure-${ctx.task.name.replace(/\W+/g, '-').slice(0, 40)}.png`);
      await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      console.log(`[dashboard e2e] screenshot of the failure: ${file}`);
      await page.keyboard.press('Escape').catch(() => undefined);
    });
  });
  it('signs in and lands on products, which explains how to add the first one', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await audit('sign-in');
    await shoot('sign-in');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The API's own message, as it is.
    await page.getByRole('alert').getByText(/password/i).waitFor();
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Products' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/products');
    await page.getByRole('heading', { name: 'Add your first product' }).waitFor();
    await audit('products-empty');
    await shoot('products-empty');
  });

  it('bulk-creates a product from photos: quote with credits first, then live progress to ready', async () => {
    // Meanwhile a model is imported through the API, for publishing below.
    const glb = await boxGlb(0.25);
    const up = await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(t.org.secret_key), 'content-type': 'model/gltf-binary' }, payload: glb });
    modelProductId = (await api('POST', '/v1/products', { model_path: up.json().path, title: 'Walnut side table', tags: ['tables'] })).id;

    const dir = join(tmpdir(), `plinth-dash-${Date.now()}`);
    mkdirSync(dir, { recursive: true });
    const files = [];
    for (const [i, colour] of [{ r: 170, g: 110, b: 60 }, { r: 150, g: 95, b: 50 }, { r: 40, g: 90, b: 160 }].entries()) {
      const file = join(dir, `chair-${i + 1}.jpg`);
      writeFileSync(file, await productPhoto(800, 600, colour));
      files.push(file);
    }
    await page.getByRole('button', { name: 'Add products' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add products' });
    await dialog.getByLabel('Photos').setInputFiles(files);
    await dialog.getByLabel('Title').fill('Oak chair');
    await dialog.getByLabel('Tags').fill('chairs, oak');
    await dialog.getByLabel('Build a 3D model').uncheck();
    await audit('add-products');
    await shoot('add-products');
    await dialog.getByRole('button', { name: 'Get quote' }).click();
    await dialog.getByText(/credits? \(/).waitFor();
    await dialog.getByText(/balance \d+ credits/).waitFor();
    await shoot('add-products-quote');
    await dialog.getByRole('button', { name: 'Create product' }).click();
    // Image processing runs in the worker's sandbox; on a busy two-core machine it can take a while.
    await dialog.getByText(/Images ready/).waitFor({ timeout: 240_000 });
    await dialog.getByRole('button', { name: 'Done' }).click();
    const card = page.getByRole('list', { name: 'Products' }).getByRole('link', { name: 'Oak chair' });
    await card.waitFor();
    await waitFor(async () => (await api('GET', `/v1/products/${modelProductId}`)).model_status === 'ready', 90_000, 'the model import');
    await page.reload();
    await page.getByRole('link', { name: 'Walnut side table' }).waitFor();
    await audit('products');
    await shoot('products');
    await card.click();
  });

  it('accepts one image, rejects another, saves the review; the preview follows the background', async () => {
    await page.getByRole('heading', { level: 1, name: 'Oak chair' }).waitFor();
    const images = page.getByRole('listitem', { name: /^Image \d$/ });
    await expect.poll(() => images.count()).toBe(3);
    await images.nth(0).getByRole('button', { name: 'Accept' }).click();
    await images.nth(2).getByRole('button', { name: 'Reject' }).click();
    const preview = page.getByRole('img', { name: 'Finished preview' });
    await preview.waitFor();
    await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
    const before = await preview.getAttribute('src');
    const pixel = () =>
      preview.evaluate((img: HTMLImageElement) => {
        const c = document.createElement('canvas');
        c.width = img.naturalWidth;
        c.height = img.naturalHeight;
        const g = c.getContext('2d')!;
        g.drawImage(img, 0, 0);
        return Array.from(g.getImageData(2, 2, 1, 1).data.slice(0, 3));
      });
    expect((await pixel())[2]).toBeGreaterThan(200);
    await page.getByLabel('Background colour').fill('#1f6f4a');
    await expect.poll(() => preview.getAttribute('src')).not.toBe(before);
    await expect.poll(async () => (await preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)) && (await pixel())[1], { timeout: 20_000 }).toBeGreaterThan(90);
    expect((await pixel())[0]).toBeLessThan(60);
    await page.getByRole('button', { name: 'Save review' }).click();
    await page.getByRole('status').getByText('Review saved').waitFor();
    const saved = await api('GET', `/v1/products/${new URL(page.url()).pathname.split('/').pop()}`);
    const byPosition = [...saved.images].sort((a: { position: number }, b: { position: number }) => a.position - b.position);
    expect(byPosition.map((i: { image_review_status: string }) => i.image_review_status)).toEqual(['accepted', 'pending', 'rejected']);
    expect(byPosition[0].settings.background).toBe('#1f6f4a');
    await audit('product');
    await shoot('product');
  });

  it('checks an image against Amazon: the failed rule in words, and the products filter finds it', async () => {
    const productUrl = page.url();
    await page.getByRole('combobox', { name: 'Channel' }).selectOption('amazon_main');
    await page.getByRole('slider', { name: /Product fills/ }).fill('0.81');
    await page.getByRole('button', { name: 'Save review' }).click();
    await page.getByRole('status').getByText('Review saved').waitFor();
    await page.getByRole('button', { name: 'Check against the rules' }).click();
    const report = page.getByRole('region', { name: /^Channel rules, image/ });
    await report.getByText('The product fills 81% of the image; Amazon needs 85%.').waitFor({ timeout: 60_000 });
    await report.getByText('1 rule failed').waitFor();
    await audit('product-compliance');
    await shoot('product-compliance', report);
    await visit('Products', 'Products');
    await page.getByLabel('Not channel-ready').check();
    await expect.poll(() => page.getByRole('link', { name: /Oak chair/ }).count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByRole('link', { name: /Walnut side table/ }).count()).toBe(0);
    await page.goto(productUrl);
    await page.getByRole('heading', { level: 1, name: 'Oak chair' }).waitFor();
  });

  it('publishes a product with a ready model and copies its snippet', async () => {
    await page.goto(`${base}/products/${modelProductId}`);
    await page.getByRole('heading', { level: 1, name: 'Walnut side table' }).waitFor();
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('button', { name: 'Unpublish' }).waitFor();
    expect((await api('GET', `/v1/products/${modelProductId}`)).status).toBe('published');
    // The files the model is served as: web, mobile and USDZ, with their sizes and fidelity.
    const delivery = page.getByRole('region', { name: 'Delivery' });
    await delivery.getByRole('table', { name: 'Delivered files' }).waitFor();
    expect(await delivery.getByRole('row').count()).toBe(4);
    await delivery.getByRole('link', { name: 'Download the master' }).waitFor();
    await page.getByRole('button', { name: 'Copy snippet' }).click();
    await page.getByRole('status').getByText('Copied').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain(`product-id="${modelProductId}"`);
    expect(copied).toContain(`${base}/embed.js`);
    await audit('product-model');
    await shoot('product-model');
  });

  it('places a hotspot by a click on the model in the Viewer panel and saves the viewer settings', async () => {
    await page.goto(`${base}/products/${modelProductId}`);
    const panel = page.getByRole('region', { name: 'Viewer' });
    const preview = panel.locator('model-viewer');
    // model-viewer loads a model once it comes near the screen; the panel sits below the Delivery panel.
    await preview.scrollIntoViewIfNeeded();
    await waitFor(async () => preview.evaluate((el) => (el as HTMLElement & { loaded?: boolean }).loaded === true).catch(() => false), 90_000, 'the Viewer preview');
    // A real click at the middle of the preview, where the model is.
    await preview.click();
    await panel.getByLabel('Label of hotspot 1').fill('Top');
    await panel.getByLabel('Text of hotspot 1').fill('Oiled walnut.');
    await panel.getByLabel('Show dimensions').check();
    await panel.getByLabel('AR placement').selectOption('wall');
    await panel.getByRole('button', { name: 'Save viewer settings' }).click();
    await panel.getByRole('status').getByText('Saved.').waitFor();
    const settings = (await api('GET', `/v1/products/${modelProductId}`)).model.settings;
    expect(settings).toMatchObject({ show_dimensions: true, ar_placement: 'wall', hotspots: [{ label: 'Top', text: 'Oiled walnut.' }] });
    // The click landed on the model: a point on its surface, within its size.
    expect(settings.hotspots[0].position.every((v: number) => Number.isFinite(v) && Math.abs(v) < 1)).toBe(true);
    expect(Math.hypot(...settings.hotspots[0].normal)).toBeCloseTo(1, 2);
    await audit('product-viewer');
    await shoot('product-viewer');
  });

  it('warns on a model whose size suggests wrong units, and a rescale to the real height clears it', async () => {
    // A 25 cm side table exported in centimetres and read as metres: 25 m across.
    const up = await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(t.org.secret_key), 'content-type': 'model/gltf-binary' }, payload: await boxGlb(25) });
    const id = (await api('POST', '/v1/products', { model_path: up.json().path, title: 'Oversized stool' })).id;
    await waitFor(async () => (await api('GET', `/v1/products/${id}`)).model_status === 'ready', 90_000, 'the oversized import');
    await page.goto(`${base}/products/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Oversized stool' }).waitFor();
    const note = page.getByRole('note', { name: 'Model warnings' });
    await note.getByText('Check the size').waitFor();
    expect(await note.textContent()).toMatch(/25 m across .*larger than 10 m.*not metres/);
    await audit('product-model-warning');
    await shoot('product-model-warning');
    await note.getByRole('link', { name: 'Enter the real height' }).click();
    await page.getByLabel('Real height (m)').fill('0.25');
    await page.getByRole('button', { name: 'Rescale' }).click();
    await page.getByRole('status').getByText('Rescaled.').waitFor();
    await expect.poll(() => note.count()).toBe(0);
    expect((await api('GET', `/v1/products/${id}`)).model.warnings).toEqual([]);
  });

  it('shows how a generated model passed the gate: method, photos placed and left out, coverage, stereo', async () => {
    const id = await seedProduct(t, t.org.org_id, {
      title: 'Plaster temple',
      quality: {
        method: 'posed_stereo',
        pose_source: 'sfm',
        views_used: 16,
        views_total: 16,
        coverage: { largest_gap_deg: 42.7, elevation_min_deg: 6.2, elevation_max_deg: 7.5 },
        heldout_iou: { median: 0.934, min: 0.824, views: 8 },
        silhouette_iou: { median: 0.967, min: 0.878 },
        stereo_coverage: 0.741,
        largest_piece: 1,
        scale_source: 'given',
      },
    });
    await page.goto(`${base}/products/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Plaster temple' }).waitFor();
    const fact = async (term: string) => (await page.getByRole('term').filter({ hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]').textContent())?.trim();
    expect(await fact('Method')).toBe('posed stereo · cameras sfm');
    expect(await fact('Views used')).toBe('16 of 16');
    expect(await fact('Match on unseen photos')).toBe('median 0.93, worst 0.82 (8 photos left out in turn)');
    expect(await fact('Silhouette match')).toBe('median 0.97, worst 0.88');
    expect(await fact('Coverage')).toBe('widest gap 43°, cameras 6° to 8° above the product');
    expect(await fact('Measured by stereo')).toBe('74% of the surface');
    await shoot('product-model-quality', page.getByRole('term').filter({ hasText: /^Method$/ }));
  });

  it('shows on the usage page the view that the embed on a shop page reported', async () => {
    const project = (await api('GET', '/v1/projects')).data[0];
    await api('PATCH', `/v1/projects/${project.id}`, { allowed_domains: [...project.allowed_domains, shopOrigin] });
    const pk = (await api('POST', '/v1/api_keys', { type: 'publishable', project_id: project.id, name: 'Shop' })).key;
    const shopPage = await context.newPage();
    await shopPage.goto(`${shopOrigin}/?id=${modelProductId}&key=${pk}`);
    await waitFor(async () => (await api('GET', '/v1/usage')).totals.view >= 1, 60_000, 'the beacon of a view');
    await shopPage.close();
    await visit('Usage', 'Usage');
    await page.getByRole('img', { name: /1 views/ }).waitFor();
    await page.getByRole('table', { name: 'Top products' }).getByRole('link', { name: 'Walnut side table' }).waitFor();
    await audit('usage');
    await shoot('usage');
  });

  it('creates a key and shows it once', async () => {
    await visit('API keys', 'API keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Developer');
    await dialog.getByRole('checkbox', { name: 'products:read' }).check();
    await audit('keys-create');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const key = await dialog.getByLabel('New key').textContent();
    expect(key).toMatch(/^sk_[A-Za-z0-9_-]{20,}$/);
    await shoot('keys-new-key');
    await dialog.getByRole('button', { name: 'Copy key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await dialog.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('row', { name: /Developer/ });
    await row.waitFor();
    expect(await page.content()).not.toContain(key!);
    // It works, with the scope it was given.
    const res = await t.app.inject({ method: 'GET', url: '/v1/products', headers: bearer(key!) });
    expect(res.statusCode).toBe(200);
    await audit('keys');
    await shoot('keys');
  });

  it('adds a webhook endpoint, sends a test event and sees the delivery', async () => {
    await visit('Webhooks', 'Webhooks');
    await page.getByRole('heading', { name: 'No endpoints yet' }).waitFor();
    await page.getByLabel('Endpoint URL').fill(rx.url('/plinth'));
    await page.getByLabel('Description').fill('Shop sync');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Signing secret').waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const row = page.getByRole('table', { name: 'Deliveries' }).getByRole('row', { name: /webhook\.test/ });
    await row.getByText('succeeded').waitFor({ timeout: 30_000 });
    expect(rx.of('/plinth').length).toBeGreaterThanOrEqual(1);
    await audit('webhooks');
    await shoot('webhooks');
  });

  it('the other pages render and pass the accessibility check', async () => {
    await visit('Exports', 'Exports');
    await page.getByRole('checkbox', { name: /Oak chair/ }).check();
    await audit('exports');
    await shoot('exports');
    await visit('Projects', 'Projects');
    await page.getByLabel(/^Allowed domains for/).first().waitFor();
    await audit('projects');
    await shoot('projects');
    await visit('Organization', 'Organization');
    await page.getByRole('table', { name: 'Credit ledger' }).waitFor();
    await page.getByRole('table', { name: 'Members' }).getByText(email).waitFor();
    await audit('organization');
    await shoot('organization');
    expect(axeFindings).toEqual([]);
  });

  it('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${base}/keys`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });
});
