import { Document, NodeIO } from '@gltf-transform/core';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { bearer, createTestApp, type TestApp } from '../../server/src/test/app.js';
import { seedProduct } from '../../server/src/test/products.js';

export const BUNDLE = fileURLToPath(new URL('../dist/embed.js', import.meta.url));
export const CHROMIUM = process.env.PLINTH_CHROMIUM_PATH || '/usr/bin/chromium';

export function assertBuilt(): void {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build -w packages/embed\` first.`);
}

/** Real Chromium, no network beyond loopback, WebGL through SwiftShader. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
    ],
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export interface ApiCall {
  method: string;
  path: string;
  origin: string | null;
  status: number;
  allowOrigin: string | null;
  at: number;
}

export interface Api {
  t: TestApp;
  base: string;
  /** every request the API answered, as it saw it */
  calls: ApiCall[];
  close(): Promise<void>;
}

/**
 * A real Plinth app on a loopback port. PUBLIC_URL must name that port before the app is built,
 * since model and thumbnail URLs are made from it.
 */
export async function startApi(): Promise<Api> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ PUBLIC_URL: base, PORT: String(port) });
  const calls: ApiCall[] = [];
  t.app.server.on('request', (req, res) => {
    // Fastify hands its headers to writeHead directly, where getHeader() cannot see them afterwards.
    let allowOrigin: string | null = null;
    const writeHead = res.writeHead;
    res.writeHead = function (this: typeof res, ...args: Parameters<typeof res.writeHead>) {
      const headers = args.find((a) => a && typeof a === 'object' && !Array.isArray(a)) as Record<string, unknown> | undefined;
      const allow = headers?.['access-control-allow-origin'] ?? res.getHeader('access-control-allow-origin');
      allowOrigin = allow === undefined ? null : String(allow);
      return writeHead.apply(this, args);
    } as typeof res.writeHead;
    res.on('finish', () => {
      calls.push({
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0],
        origin: req.headers.origin ?? null,
        status: res.statusCode,
        allowOrigin,
        at: Date.now(),
      });
    });
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, base, calls, close: () => t.close() };
}

/** A small lit box, so a screenshot of a loaded model is clearly not blank. */
export async function boxGlb(): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const h = 0.15;
  const faces: Array<[number[], number[][]]> = [
    [[1, 0, 0], [[h, -h, -h], [h, h, -h], [h, h, h], [h, -h, h]]],
    [[-1, 0, 0], [[-h, -h, h], [-h, h, h], [-h, h, -h], [-h, -h, -h]]],
    [[0, 1, 0], [[-h, h, -h], [-h, h, h], [h, h, h], [h, h, -h]]],
    [[0, -1, 0], [[-h, -h, h], [-h, -h, -h], [h, -h, -h], [h, -h, h]]],
    [[0, 0, 1], [[-h, -h, h], [h, -h, h], [h, h, h], [-h, h, h]]],
    [[0, 0, -1], [[h, -h, -h], [-h, -h, -h], [-h, h, -h], [h, h, -h]]],
  ];
  const positions: number[] = [];
  const normals: number[] = [];
  const indices: number[] = [];
  faces.forEach(([normal, corners], f) => {
    for (const c of corners) positions.push(...c), normals.push(...normal);
    indices.push(f * 4, f * 4 + 1, f * 4 + 2, f * 4, f * 4 + 2, f * 4 + 3);
  });
  const accessor = (type: 'VEC3' | 'SCALAR', array: Float32Array | Uint16Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', new Float32Array(positions)))
    .setAttribute('NORMAL', accessor('VEC3', new Float32Array(normals)))
    .setIndices(accessor('SCALAR', new Uint16Array(indices)))
    .setMaterial(doc.createMaterial('orange').setBaseColorFactor([0.9, 0.35, 0.1, 1]).setRoughnessFactor(0.6));
  const node = doc.createNode('box').setMesh(doc.createMesh('box').addPrimitive(primitive));
  doc.createScene('scene').addChild(node);
  return new NodeIO().writeBinary(doc);
}

/** A product of the org in the given state, with a real GLB in storage when it has a model. */
export async function productWithModel(api: Api, org: { org_id: string; secret_key: string }, status: 'published' | 'draft') {
  const id = await seedProduct(api.t, org.org_id, { status, title: 'Walnut stool' });
  const res = await api.t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(org.secret_key) });
  const modelUrl: string = res.json().model.url;
  const key = decodeURIComponent(modelUrl.slice(`${api.base}/files/`.length));
  await api.t.deps.storage.put(key, Buffer.from(await boxGlb()), { contentType: 'model/gltf-binary' });
  return id;
}

export async function allowOrigins(api: Api, org: { project_id: string; secret_key: string }, origins: string[]) {
  const res = await api.t.app.inject({
    method: 'PATCH',
    url: `/v1/projects/${org.project_id}`,
    headers: bearer(org.secret_key),
    payload: { allowed_domains: origins },
  });
  if (res.statusCode !== 200) throw new Error(`PATCH project failed: ${res.statusCode} ${res.body}`);
}

export async function usage(api: Api, org: { secret_key: string }, productId: string) {
  const res = await api.t.app.inject({
    method: 'GET',
    url: `/v1/usage?product_id=${productId}&include_internal=true`,
    headers: bearer(org.secret_key),
  });
  if (res.statusCode !== 200) throw new Error(`usage failed: ${res.statusCode} ${res.body}`);
  // The counts these tests are about; section 18's types are checked by the experiment test.
  const { view, ar_enter, ar_session_ended } = res.json().totals as Record<string, number>;
  return { view, ar_enter, ar_session_ended };
}

export interface Shop {
  /** http://localhost:PORT — the shop's origin */
  origin: string;
  /** the same server reached as 127.0.0.1: another origin */
  otherOrigin: string;
  pageUrl(origin: string, attrs: Record<string, string>): string;
  close(): Promise<void>;
}

/**
 * The shop: a second loopback origin serving a product page that loads `<api>/embed.js` and holds
 * the element. Events the element emits are kept in `window.__events` for the test to read.
 */
export async function startShop(apiBase: string): Promise<Shop> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://shop');
    if (url.pathname !== '/product') {
      res.writeHead(404).end();
      return;
    }
    const attrs = [...url.searchParams].map(([k, v]) => `${k}="${v.replace(/[&"<>]/g, '')}"`).join(' ');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html>
<html><head><meta charset="utf-8"><title>Shop</title>
<script>
  window.__events = [];
  for (const type of ['service-model:load', 'service-model:error', 'service-model:ar-start', 'service-model:ar-end']) {
    document.addEventListener(type, (e) => window.__events.push({ type, detail: JSON.parse(JSON.stringify(e.detail)) }));
  }
  window.addEventListener('error', (e) => (window.__pageErrors = (window.__pageErrors || []).concat(String(e.message))));
</script>
<script type="module" src="${apiBase}/embed.js"></script>
<style>body { margin: 0; padding: 16px; } service-model { width: 420px; }</style>
</head><body><h1>Walnut stool</h1><service-model ${attrs}></service-model></body></html>`);
  });
  const port = await listen(server);
  return {
    origin: `http://localhost:${port}`,
    otherOrigin: `http://127.0.0.1:${port}`,
    pageUrl: (origin, attrs) => `${origin}/product?${new URLSearchParams(attrs)}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function waitFor<T>(fn: () => Promise<T | undefined | false | null>, timeoutMs = 15_000, stepMs = 100): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** The element's own console explanations, for failure messages. */
export function elementWarnings(page: Page): string[] {
  const warnings: string[] = [];
  page.on('console', (m) => m.text().startsWith('[service-model]') && warnings.push(m.text()));
  return warnings;
}

/**
 * Waits for the model to be on screen. SwiftShader renders on the CPU: compiling shaders and lighting
 * a first model takes 15–30 s on two cores. On failure, says what the element reported instead.
 */
export async function waitReady(page: Page, warnings: string[], timeoutMs = 90_000): Promise<void> {
  const state = () => page.locator('service-model').getAttribute('state');
  // An error state is final: no need to wait out the timeout to report it.
  await waitFor(async () => ['ready', 'error'].includes((await state()) ?? ''), timeoutMs, 250).catch(() => null);
  const final = await state();
  if (final !== 'ready') throw new Error(`the element is "${final}", not "ready": ${warnings.join(' | ') || 'it reported nothing'}`);
}
