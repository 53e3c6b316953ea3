import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type Api } from './harness.js';

const run = promisify(execFile);
const SDK = fileURLToPath(new URL('..', import.meta.url));
const REPO = join(SDK, '..', '..');
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');

/** Runs the packed SDK from a fresh project, as a user who installed it would. */
const ESM_SCRIPT = `
import { Plinth, NotFoundError, PlinthError } from '@plinth/sdk';
import DefaultPlinth from '@plinth/sdk';
const client = new Plinth({ apiKey: process.env.KEY, baseURL: process.env.BASE });
const health = await client.health.retrieve();
const ids = [];
for await (const p of client.products.list({ limit: 1 })) ids.push(p.id);
let missing = null;
try { await client.products.retrieve('prod_missing'); } catch (e) { missing = e instanceof NotFoundError && e instanceof PlinthError ? e.code : String(e); }
console.log(JSON.stringify({ health: health.status, ids, missing, sameClass: DefaultPlinth === Plinth }));
`;

/** Compiles only if the published declarations are real, complete and strict. */
const TS_SOURCE = `
import { Plinth, NotFoundError, type ExportResult, type Product, type Quote, type WebhookEvent, type Page } from '@plinth/sdk';

const client = new Plinth({ apiKey: 'sk_x', baseURL: 'http://localhost:3000', fetch: (url, init) => fetch(url, init) });

export async function main(): Promise<string[]> {
  const ids: string[] = [];
  for await (const p of client.products.list({ tag: ['a', 'b'], tag_match: 'all' })) ids.push(p.id);
  const page: Page<Product> = await client.products.list();
  if (page.hasNextPage()) ids.push(...(await page.getNextPage()).data.map((p) => p.id));
  const product: Product = await client.products.retrieve('prod_1');
  const status: 'draft' | 'published' | 'archived' = product.status;
  const quote: Quote = await client.products.quote({ image_urls: ['https://example.com/a.jpg'] });
  const created = await client.products.create({ model_url: 'https://example.com/m.glb' });
  if (created.object === 'product') ids.push(created.id);
  else ids.push(created.resume_token);
  const result: ExportResult = await client.products.export({ ids });
  if (result.kind === 'zip') {
    const stream: ReadableStream<Uint8Array> = result.body;
    void stream;
  } else {
    const pending: number = result.export.pending_images;
    void pending;
  }
  const event: WebhookEvent = await client.webhooks.verify('{}', { 'webhook-id': 'x' }, 'whsec_x');
  const upload = await client.uploads.create(new Uint8Array([1, 2, 3]), { contentType: 'image/png' });
  // @ts-expect-error repeated filters are arrays
  void client.products.list({ tag: 'a' });
  // @ts-expect-error not a field of a product update
  void client.products.update('prod_1', { colour: 'red' });
  try {
    await client.projects.retrieve('proj_1');
  } catch (e) {
    if (e instanceof NotFoundError) ids.push(e.code, String(e.status), e.requestId ?? '');
  }
  // Waiting for work, with progress, and a call's request id.
  const ready: Product = await client.products.waitFor('prod_1', { until: 'model_ready', timeoutMs: 60_000, onProgress: (p) => ids.push(String(p.progress)) });
  const modelStatus: 'none' | 'queued' | 'generating' | 'ready' | 'failed' = ready.model_status;
  const imagesStatus: 'none' | 'ingesting' | 'ready' | 'failed' | 'ordered' = ready.images_status;
  const { data, requestId, headers, status: httpStatus } = await client.products.retrieve('prod_1').withResponse();
  const first: string | undefined = data.tags[0];
  // @ts-expect-error waitFor takes model_ready or images_ready only
  void client.products.waitFor('prod_1', { until: 'published' });
  return [...ids, status, quote.resume_token, event.type, upload.path, modelStatus, imagesStatus, requestId ?? '', headers.get('etag') ?? '', String(httpStatus), first ?? '', handle(event)];
}

/** A typed webhook handler: the switch narrows data.object by type. */
export function handle(event: WebhookEvent): string {
  switch (event.type) {
    case 'product.deleted':
      return event.data.object.deleted ? event.data.object.id : '';
    case 'export.ready':
      return event.data.object.download_url;
    case 'webhook.test':
      return event.data.object.endpoint_id;
    case 'experiment.completed':
      return event.data.object.results.verdict ?? event.data.object.id;
    default: {
      const product: Product = event.data.object;
      return product.model?.usdz_url ?? product.id;
    }
  }
}
`;

/** CommonJS consumers: require() gets the same client. */
const CJS_SCRIPT = `
const { Plinth, NotFoundError } = require('@plinth/sdk');
const client = new Plinth({ apiKey: process.env.KEY, baseURL: process.env.BASE });
client.health.retrieve().withResponse().then((r) => console.log(JSON.stringify({ status: r.data.status, requestId: r.requestId, notFound: typeof NotFoundError, resolved: require.resolve('@plinth/sdk') })));
`;

let api: Api;
let dir: string;
beforeAll(async () => {
  api = await startApi();
  dir = mkdtempSync(join(tmpdir(), 'plinth-sdk-pack-'));
});
afterAll(async () => {
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm pack', { timeout: 180_000 }, () => {
  it('packs dist and README only, with no runtime dependencies; installs offline; runs as ESM; typechecks with and without DOM', async () => {
    expect(existsSync(join(SDK, 'dist', 'index.js')), 'run `npm run build -w packages/sdk` first').toBe(true);
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: SDK });
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    const files = info.files.map((f) => f.path);
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(files).toContain('dist/index.cjs');
    expect(files.filter((f) => !f.startsWith('dist/') && !['README.md', 'LICENSE', 'package.json'].includes(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});

    const project = join(dir, 'consumer');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', join(dir, info.filename), '--offline', '--no-audit', '--no-fund'], { cwd: project });
    expect(existsSync(join(project, 'node_modules', '@plinth', 'sdk', 'dist', 'index.js'))).toBe(true);

    writeFileSync(join(project, 'run.mjs'), ESM_SCRIPT);
    const id = await import('../../server/src/test/products.js').then((m) => m.seedProduct(api.t, api.t.org.org_id));
    const out = await run('node', ['run.mjs'], { cwd: project, env: { ...process.env, BASE: api.base, KEY: api.t.org.secret_key } });
    expect(JSON.parse(out.stdout)).toEqual({ health: 'ok', ids: [id], missing: 'not_found', sameClass: true });

    writeFileSync(join(project, 'run.cjs'), CJS_SCRIPT);
    const cjs = JSON.parse((await run('node', ['run.cjs'], { cwd: project, env: { ...process.env, BASE: api.base, KEY: api.t.org.secret_key } })).stdout);
    expect(cjs).toMatchObject({ status: 'ok', requestId: expect.stringMatching(/^req_/), notFound: 'function', resolved: expect.stringMatching(/index\.cjs$/) });

    writeFileSync(join(project, 'check.ts'), TS_SOURCE);
    const common = {
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      noEmit: true,
      skipLibCheck: false,
    };
    const configs = {
      'tsconfig.browser.json': { ...common, lib: ['ES2022', 'DOM'], types: [] },
      'tsconfig.node.json': { ...common, lib: ['ES2022'], types: ['node'], typeRoots: [join(REPO, 'node_modules', '@types')] },
    };
    const outputs = await Promise.all(
      Object.entries(configs).map(async ([name, compilerOptions]) => {
        writeFileSync(join(project, name), JSON.stringify({ compilerOptions, files: ['check.ts'] }));
        const result = await run('node', [TSC, '-p', name], { cwd: project }).catch((e: { stdout: string }) => e);
        return [name, result.stdout];
      }),
    );
    expect(Object.fromEntries(outputs)).toEqual({ 'tsconfig.browser.json': '', 'tsconfig.node.json': '' });
  });
});
