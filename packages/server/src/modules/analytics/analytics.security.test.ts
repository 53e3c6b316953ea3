import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authMatrix } from '../../test/auth-matrix.js';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';
import { zeroCounts } from './analytics.types.js';

const unknownOrg = 'org_00000000000000000000000000';
const unknownProduct = 'prod_00000000000000000000000000';
const view = { type: 'view', product_id: 'prod_x' };

authMatrix('analytics', [
  {
    name: 'POST /v1/beacon',
    scope: 'beacon:write',
    publishable: true,
    setup: async (_t, _key, orgId) => ({ orgId }),
    request: () => ({ method: 'POST', url: '/v1/beacon', payload: { events: [view] } }),
    otherOrg: (c) => ({ method: 'POST', url: '/v1/beacon', payload: { events: [view], org_id: c.idsB.orgId } }),
    unknownId: () => ({ method: 'POST', url: '/v1/beacon', payload: { events: [view], org_id: unknownOrg } }),
  },
  {
    name: 'GET /v1/usage',
    scope: 'usage:read',
    setup: async (t, _key, orgId) => ({ productId: await seedProduct(t, orgId) }),
    request: () => ({ method: 'GET', url: '/v1/usage' }),
    otherOrg: (c) => ({ method: 'GET', url: `/v1/usage?product_id=${c.idsB.productId}` }),
    unknownId: () => ({ method: 'GET', url: `/v1/usage?product_id=${unknownProduct}` }),
  },
]);

describe('analytics: publishable keys', () => {
  let t: TestApp;
  let a: Awaited<ReturnType<TestApp['bootstrap']>>;
  let b: Awaited<ReturnType<TestApp['bootstrap']>>;
  beforeAll(async () => {
    t = await createTestApp();
    a = await t.bootstrap();
    b = await t.bootstrap({ allowedDomains: ['https://b-shop.example'] });
  });
  afterAll(async () => t?.close());

  const send = (key: string, origin: string | undefined, payload: object) =>
    t.app.inject({ method: 'POST', url: '/v1/beacon', headers: { ...bearer(key), ...(origin && { origin }) }, payload });
  const total = async (key: string) => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/usage?group_by=product', headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  it('from an origin outside allowed_domains, or with no Origin: 403 origin, nothing stored', async () => {
    for (const origin of ['https://evil.example', 'https://b-shop.example', 'http://shop.example', undefined]) {
      const res = await send(a.publishable_key, origin, { events: [view] });
      expect(res.statusCode, origin).toBe(403);
      expect(res.json().error.details.reason).toBe('origin');
    }
    expect((await total(a.secret_key)).totals.view).toBe(0);
  });

  it("a key of project A cannot write into organization B, whatever ids it sends", async () => {
    const productB = await seedProduct(t, b.org_id, { title: 'B only' });
    const named = await send(a.publishable_key, 'https://shop.example', { events: [view], org_id: b.org_id });
    expect(named.statusCode).toBe(404);

    const res = await send(a.publishable_key, 'https://shop.example', { events: [{ type: 'view', product_id: productB }, { type: 'ar_enter', product_id: productB }] });
    expect(res.statusCode).toBe(202);
    // Counted where the key belongs, as a subject with no product row there.
    const usageA = await total(a.secret_key);
    expect(usageA.totals).toEqual({ ...zeroCounts(), view: 1, ar_enter: 1 });
    expect(usageA.by_product).toEqual([]);
    const usageB = await total(b.secret_key);
    expect(usageB.totals).toEqual(zeroCounts());
    expect(usageB.by_product).toEqual([]);
    const rows = await t.deps.database.db.selectFrom('beacon_events').select('org_id').where('subject_id', '=', productB).execute();
    expect(rows.map((r) => r.org_id)).toEqual([a.org_id, a.org_id]);
  });

  it('the CORS preflight for /v1/beacon is answered for allowed origins only', async () => {
    const preflight = (origin: string) =>
      t.app.inject({ method: 'OPTIONS', url: '/v1/beacon', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
    const ok = await preflight('https://shop.example');
    expect(ok.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect(String(ok.headers['access-control-allow-headers'])).toMatch(/Authorization/);
    expect((await preflight('https://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a publishable key cannot read usage, even for its own organization', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/usage?org_id=${a.org_id}`, headers: { ...bearer(a.publishable_key), origin: 'https://shop.example' } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.details.reason).toBe('scope');
  });
});

describe('analytics: beacon rate limits are their own bucket', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      PLINTH_RATE_LIMITS: 'on',
      PLINTH_RATE_LIMIT_BEACON_BURST: '3',
      PLINTH_RATE_LIMIT_BEACON_PER_SECOND: '0.01',
      PLINTH_RATE_LIMIT_API_BURST: '50',
    });
  });
  afterAll(async () => t?.close());

  const flood = async (headers: Record<string, string>, n: number, remoteAddress = '203.0.113.7') => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await t.app.inject({ method: 'POST', url: '/v1/beacon', headers, remoteAddress, payload: { events: [view] } });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) {
        expect(res.json().error.code).toBe('rate_limited');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
    return statuses;
  };

  it('a beacon flood from a publishable key gets 429, while the same key still reads products', async () => {
    const org = await t.bootstrap();
    const product = await seedProduct(t, org.org_id, { status: 'published' });
    const headers = { ...bearer(org.publishable_key), origin: 'https://shop.example' };
    expect(await flood(headers, 5)).toEqual([202, 202, 202, 429, 429]);
    const read = await t.app.inject({ method: 'GET', url: `/v1/products/${product}`, headers, remoteAddress: '203.0.113.7' });
    expect(read.statusCode).toBe(200);
    // Per key and client IP: one visitor's flood does not silence the key for everyone else.
    expect(await flood(headers, 1, '198.51.100.9')).toEqual([202]);
  });

  it('a beacon flood from a secret key gets 429, while the same key still reads usage', async () => {
    const org = await t.bootstrap();
    expect(await flood(bearer(org.secret_key), 5)).toEqual([202, 202, 202, 429, 429]);
    const res = await t.app.inject({ method: 'GET', url: '/v1/usage', headers: bearer(org.secret_key) });
    expect(res.statusCode).toBe(200);
    expect(res.json().totals.view).toBe(0); // secret-key beacons are internal
  });
});
