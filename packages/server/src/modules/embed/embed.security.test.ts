import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';

let t: TestApp;
let published: string;
beforeAll(async () => {
  t = await createTestApp();
  published = await seedProduct(t, t.org.org_id, { status: 'published' });
});
afterAll(async () => t?.close());

const STRANGER = 'https://elsewhere.example';
const get = (id: string, key: string, origin?: string) =>
  t.app.inject({ method: 'GET', url: `/embed/products/${id}`, headers: { ...bearer(key), ...(origin ? { origin } : {}) } });

describe('embed read: keys and origins', () => {
  it('an unknown publishable key gets a 401 envelope readable from any origin', async () => {
    const res = await get(published, 'pk_live_doesnotexist0000000000', STRANGER);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('unauthenticated');
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('a revoked publishable key gets the same readable 401', async () => {
    const other = await t.bootstrap();
    const keys = await t.app.inject({ method: 'GET', url: `/v1/api_keys?org_id=${other.org_id}`, headers: bearer(other.secret_key) });
    const pk = keys.json().data.find((k: { type?: string; prefix?: string; id: string }) => other.publishable_key.startsWith(String(k.prefix)));
    const revoked = await t.app.inject({ method: 'DELETE', url: `/v1/api_keys/${pk.id}?org_id=${other.org_id}`, headers: bearer(other.secret_key) });
    expect(revoked.statusCode, revoked.body).toBeLessThan(300);
    const id = await seedProduct(t, other.org_id, { status: 'published' });
    // The key cache may hold the key for a few seconds; the answer must turn to 401 within that.
    let res = await get(id, other.publishable_key, 'https://shop.example');
    for (let i = 0; i < 80 && res.statusCode !== 401; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await get(id, other.publishable_key, 'https://shop.example');
    }
    expect(res.statusCode).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('a secret key pasted into a page is refused with 401 and told why', async () => {
    const res = await get(published, t.org.secret_key, 'https://shop.example');
    expect(res.statusCode).toBe(401);
    expect(res.json().error.message).toMatch(/publishable key/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('a right key from an origin outside allowed_domains gets 403 origin, unreadable by that origin', async () => {
    const res = await get(published, t.org.publishable_key, STRANGER);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.details.reason).toBe('origin');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('no Origin at all gets 403 origin', async () => {
    const res = await get(published, t.org.publishable_key);
    expect(res.statusCode).toBe(403);
  });

  it('the preflight is answered for any origin, so the 401 can be read', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: `/embed/products/${published}`,
      headers: { origin: STRANGER, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(STRANGER);
  });

  it('404 for another organization, a draft, and a model not ready', async () => {
    const other = await t.bootstrap();
    const foreign = await seedProduct(t, other.org_id, { status: 'published' });
    const draft = await seedProduct(t, t.org.org_id, { status: 'draft' });
    const queued = await seedProduct(t, t.org.org_id, { status: 'published', modelStatus: 'queued' });
    for (const id of [foreign, draft, queued, 'prod_nope']) {
      const res = await get(id, t.org.publishable_key, 'https://shop.example');
      expect(res.statusCode, id).toBe(404);
      expect(res.json().error.code).toBe('not_found');
      expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
    }
  });
});
