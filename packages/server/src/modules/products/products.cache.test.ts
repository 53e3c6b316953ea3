import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';

/**
 * The storefront read (a publishable key from an allowed origin) is cacheable by a shop's CDN and the browser,
 * and a change still reaches it within the documented window: 2 s of server-side answer cache (5 s for a
 * revoked key), then the browser's max-age.
 */
let t: TestApp;
const origin = 'https://shop.example';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(async () => t?.close());

const read = (id: string, key = t.org.publishable_key, extra: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: { ...bearer(key), origin, ...extra } });

describe('storefront read caching', { timeout: 30_000 }, () => {
  it('sends a strong ETag, answers 304 to If-None-Match, and lets shared caches keep it briefly, varying on Origin', async () => {
    const id = await seedProduct(t, t.org.org_id, { status: 'published', title: 'Lamp' });
    const first = await read(id);
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{16,}"$/); // strong: no W/
    expect(first.headers['cache-control']).toMatch(/^public, max-age=\d+, stale-while-revalidate=\d+$/);
    expect(String(first.headers.vary)).toMatch(/Origin/);

    const again = await read(id, t.org.publishable_key, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);

    const other = await read(id, t.org.publishable_key, { 'if-none-match': '"something-else"' });
    expect(other.statusCode).toBe(200);
    expect(other.json().title).toBe('Lamp');
  });

  it('a change of the answer changes its ETag', async () => {
    const id = await seedProduct(t, t.org.org_id, { status: 'published', title: 'Chair' });
    const before = await read(id);
    await t.app.inject({ method: 'PATCH', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key), payload: { title: 'Armchair' } });
    await sleep(2100);
    const after = await read(id);
    expect(after.json().title).toBe('Armchair');
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('an unpublished product stops being served within the server-side window', async () => {
    const id = await seedProduct(t, t.org.org_id, { status: 'published' });
    expect((await read(id)).statusCode).toBe(200);
    const res = await t.app.inject({ method: 'POST', url: '/v1/products/publish', headers: bearer(t.org.secret_key), payload: { ids: [id], status: 'draft' } });
    expect(res.statusCode, res.body).toBe(200);
    await sleep(2100);
    const gone = await read(id);
    expect(gone.statusCode).toBe(404);
    expect(gone.headers['cache-control'] ?? '').not.toMatch(/public/);
  });

  it('a revoked publishable key is refused within its window', async () => {
    const id = await seedProduct(t, t.org.org_id, { status: 'published' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/api_keys',
      headers: bearer(t.org.secret_key),
      payload: { type: 'publishable', project_id: t.org.project_id },
    });
    expect(created.statusCode, created.body).toBe(201);
    const pk = created.json().key as string;
    expect((await read(id, pk)).statusCode).toBe(200);
    const revoked = await t.app.inject({ method: 'DELETE', url: `/v1/api_keys/${created.json().id}`, headers: bearer(t.org.secret_key) });
    expect(revoked.statusCode).toBeLessThan(300);
    await sleep(5100);
    expect((await read(id, pk)).statusCode).toBe(401);
  });
});
