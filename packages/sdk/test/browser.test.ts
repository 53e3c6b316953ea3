import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSecret, signatureHeaders } from '../../server/src/modules/webhooks/signing.js';
import { seedProduct } from '../../server/src/test/products.js';
import { startApi, type Api } from './harness.js';

const CHROMIUM = process.env.PLINTH_CHROMIUM_PATH || '/usr/bin/chromium';
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

let api: Api;
let shop: Server;
let shopOrigin: string;
let browser: Browser;

/** The built SDK bundled for the browser platform: any Node-only import would fail this build. */
async function browserBundle(): Promise<string> {
  const out = await build({ entryPoints: [DIST], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
  return out.outputFiles[0].text;
}

describe.skipIf(!existsSync(CHROMIUM))('in a real browser (Chromium), cross-origin, with a publishable key', () => {
  beforeAll(async () => {
    expect(existsSync(DIST), 'run `npm run build -w packages/sdk` first').toBe(true);
    const bundle = await browserBundle();
    shop = createServer((req, res) => {
      if (req.url === '/sdk.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
      // The page loads the SDK as a module, the way a shop's own script would.
      const html = '<!doctype html><title>shop</title><script type="module">import * as sdk from "/sdk.js"; window.sdk = sdk;</script>';
      res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopOrigin = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    api = await startApi();
    await api.client().projects.update(api.t.org.project_id, { allowed_domains: [shopOrigin] });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await new Promise((resolve) => shop?.close(resolve));
  });

  it('reads the public projection, sends a beacon, maps errors, and verifies a webhook with WebCrypto', async () => {
    const id = await seedProduct(api.t, api.t.org.org_id, { status: 'published', title: 'Lamp' });
    const secret = newSecret();
    const body = JSON.stringify({ id: 'evt_b', type: 'product.published', created_at: new Date().toISOString(), org_id: 'org_1', data: { object: { id } } });
    const headers = signatureHeaders([secret], 'evt_b', body, new Date());

    const page = await browser.newPage();
    await page.goto(`${shopOrigin}/`);
    await page.waitForFunction(() => 'sdk' in window);
    const result = await page.evaluate(
      async ({ base, pk, id, body, headers, secret }) => {
        // Typed loosely: this runs in the page, on the bundle it loaded.
        const sdk = (window as unknown as { sdk: typeof import('../src/index.js') }).sdk;
        const client = new sdk.Plinth({ apiKey: pk, baseURL: base, maxRetries: 0 });
        const product = await client.products.retrievePublic(id);
        const receipt = await client.beacon.send({ events: [{ type: 'view', product_id: id }] });
        type Failure = InstanceType<typeof sdk.PlinthError>;
        const failed = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as Failure);
        const missing = await failed(client.products.retrievePublic('prod_missing'));
        const offline = new sdk.Plinth({ apiKey: pk, baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
        const unreachable = await failed(offline.health.retrieve());
        const event = await client.webhooks.verify(body, new Headers(headers), secret);
        const forged = await failed(client.webhooks.verify(body.replace('evt_b', 'evt_x'), headers, secret));
        return {
          product,
          accepted: receipt.accepted,
          missing: [missing instanceof sdk.NotFoundError, missing?.status, missing?.code, /^req_/.test(missing?.requestId ?? '')],
          unreachable: [unreachable instanceof sdk.APIConnectionError, unreachable?.name],
          event: event.type,
          forged: forged instanceof sdk.WebhookVerificationError,
        };
      },
      { base: api.base, pk: api.t.org.publishable_key, id, body, headers, secret },
    );

    expect(result).toEqual({
      product: { id, title: 'Lamp', model_url: expect.any(String), thumbnail_url: expect.any(String), model_status: 'ready' },
      accepted: 1,
      missing: [true, 404, 'not_found', true],
      unreachable: [true, 'APIConnectionError'],
      event: 'product.published',
      forged: true,
    });
  });
});
