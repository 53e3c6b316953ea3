import Fastify, { type FastifyInstance } from 'fastify';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../http/error-handler.js';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';
import { DEMO_EMAIL, DEMO_KEY_FILE } from './demo.service.js';
import { embedVersion } from './embed.bundle.js';
import { embedRoutes } from './embed.routes.js';

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  dir = mkdtempSync(join(tmpdir(), 'plinth-embed-'));
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The routes alone, on a bundle path the test controls (the app's own points at packages/embed/dist). */
async function routesOn(bundlePath: string): Promise<FastifyInstance> {
  const app = Fastify();
  registerErrorHandling(app);
  await app.register(embedRoutes(t.deps, { bundlePath }));
  await app.ready();
  return app;
}

describe('serving the bundle', () => {
  const source = 'export const hello = "embed";\n'.repeat(50);
  let app: FastifyInstance;
  beforeAll(async () => {
    writeFileSync(join(dir, 'embed.js'), source);
    app = await routesOn(join(dir, 'embed.js'));
  });
  afterAll(async () => app?.close());

  it('serves /embed.js as public JavaScript with a short cache and CORS for module scripts', async () => {
    const res = await app.inject({ method: 'GET', url: '/embed.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe(source);
  });

  it('serves the versioned URL as immutable, and 404 for any other version', async () => {
    const res = await app.inject({ method: 'GET', url: `/embed/v${embedVersion()}.js` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toBe(source);
    const old = await app.inject({ method: 'GET', url: '/embed/v0.0.0-old.js' });
    expect(old.statusCode).toBe(404);
    expect(old.json().error.code).toBe('not_found');
  });

  it('answers 304 to a matching ETag and gzips when asked', async () => {
    const first = await app.inject({ method: 'GET', url: '/embed.js' });
    const again = await app.inject({ method: 'GET', url: '/embed.js', headers: { 'if-none-match': first.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    const zipped = await app.inject({ method: 'GET', url: '/embed.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(source);
  });

  it('picks up a rebuilt bundle without a restart', async () => {
    const path = join(dir, 'rebuilt.js');
    writeFileSync(path, 'one');
    const rebuilt = await routesOn(path);
    expect((await rebuilt.inject({ method: 'GET', url: '/embed.js' })).body).toBe('one');
    writeFileSync(path, 'second build');
    expect((await rebuilt.inject({ method: 'GET', url: '/embed.js' })).body).toBe('second build');
    await rebuilt.close();
  });

  it('answers 503 in the error envelope while the bundle is not built', async () => {
    const unbuilt = await routesOn(join(dir, 'missing', 'embed.js'));
    for (const url of ['/embed.js', `/embed/v${embedVersion()}.js`]) {
      const res = await unbuilt.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(503);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json().error).toMatchObject({ code: 'service_unavailable' });
      expect(res.json().error.message).toContain('npm run build -w packages/embed');
    }
    await unbuilt.close();
  });
});

describe('the demo page', () => {
  let demo: Awaited<ReturnType<TestApp['bootstrap']>>;
  beforeAll(async () => {
    demo = await t.bootstrap({ email: DEMO_EMAIL, allowedDomains: ['http://localhost:3000'] });
  });
  const keyFile = () => join(t.config.dataDir, DEMO_KEY_FILE);
  const demoKey = (html: string) => /publishable-key="(pk_[^"]+)"/.exec(html)?.[1];

  it('shows a published product of the demo org with a dedicated publishable key, kept in the data dir', async () => {
    const id = await seedProduct(t, demo.org_id, { status: 'published', title: 'Desk <Lamp>' });
    const res = await t.app.inject({ method: 'GET', url: `/demo/${id}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain(`<script type="module" src="/embed/v${embedVersion()}.js"></script>`);
    expect(res.body).toContain(`product-id="${id}"`);
    expect(res.body).toContain('Desk &#60;Lamp&#62;');
    const key = demoKey(res.body)!;
    expect(key).not.toBe(demo.publishable_key);
    expect(readFileSync(keyFile(), 'utf8').trim()).toBe(key);

    // The same key on every visit, and it reads the product from the demo project's allowed origin.
    expect(demoKey((await t.app.inject({ method: 'GET', url: `/demo/${id}` })).body)).toBe(key);
    const read = await t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: { ...bearer(key), origin: 'http://localhost:3000' } });
    expect(read.statusCode).toBe(200);
    expect(Object.keys(read.json()).sort()).toEqual(['id', 'model_status', 'model_url', 'thumbnail_url', 'title']);
  });

  it('replaces a revoked demo key', async () => {
    const id = await seedProduct(t, demo.org_id, { status: 'published' });
    const before = demoKey((await t.app.inject({ method: 'GET', url: `/demo/${id}` })).body)!;
    const keys = await t.app.inject({ method: 'GET', url: `/v1/api_keys?org_id=${demo.org_id}&limit=100`, headers: bearer(demo.secret_key) });
    const demoKeys = keys.json().data.filter((k: { name: string | null }) => k.name === 'Demo page (/demo)');
    expect(demoKeys).toHaveLength(1);
    const revoked = await t.app.inject({ method: 'DELETE', url: `/v1/api_keys/${demoKeys[0].id}`, headers: bearer(demo.secret_key) });
    expect(revoked.statusCode).toBe(200);
    const after = demoKey((await t.app.inject({ method: 'GET', url: `/demo/${id}` })).body)!;
    expect(after).toMatch(/^pk_/);
    expect(after).not.toBe(before);
    expect(readFileSync(keyFile(), 'utf8').trim()).toBe(after);
  });

  it('is a 404 page for a draft, another org\'s product or an unknown id', async () => {
    const draft = await seedProduct(t, demo.org_id, { status: 'draft' });
    const foreign = await seedProduct(t, t.org.org_id, { status: 'published' });
    for (const id of [draft, foreign, 'prod_nope']) {
      const res = await t.app.inject({ method: 'GET', url: `/demo/${id}`, headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).not.toContain('pk_');
    }
    const api = await t.app.inject({ method: 'GET', url: `/demo/${draft}`, headers: { accept: 'application/json' } });
    expect(api.statusCode).toBe(404);
    expect(api.json().error.code).toBe('not_found');
  });
});

describe('without a demo organization', () => {
  it('answers 404 and creates no key', async () => {
    const other = await createTestApp();
    try {
      const id = await seedProduct(other, other.org.org_id, { status: 'published' });
      const res = await other.app.inject({ method: 'GET', url: `/demo/${id}` });
      expect(res.statusCode).toBe(404);
      expect(() => readFileSync(join(other.config.dataDir, DEMO_KEY_FILE))).toThrow();
    } finally {
      await other.close();
    }
  });
});
