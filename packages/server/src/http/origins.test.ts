import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { bearer, createTestApp, type TestApp } from '../test/app.js';
import { normaliseOriginEntry, originAllowed } from './origins.js';

describe('origin matching', () => {
  const allowed = ['https://shop.example', 'https://*.brand.example', 'http://localhost:3000'];
  it.each([
    ['https://shop.example', true],
    ['https://SHOP.example', true],
    ['https://shop.example:443', true],
    ['http://shop.example', false],
    ['https://shop.example.evil', false],
    ['https://evilshop.example', false],
    ['https://a.brand.example', true],
    ['https://a.b.brand.example', true],
    ['https://brand.example', false],
    ['https://xbrand.example', false],
    ['https://a.brand.example:8443', false],
    ['http://localhost:3000', true],
    ['http://localhost:3001', false],
    ['null', false],
  ])('%s -> %s', (origin, ok) => expect(originAllowed(origin, allowed)).toBe(ok));

  it('normalises entries and refuses non-origins', () => {
    expect(normaliseOriginEntry('HTTPS://Shop.Example/')).toBe('https://shop.example');
    expect(normaliseOriginEntry('https://shop.example:443')).toBe('https://shop.example');
    expect(normaliseOriginEntry('https://shop.example/path')).toBeNull();
    expect(normaliseOriginEntry('shop.example')).toBeNull();
    expect(normaliseOriginEntry('https://*.com')).toBeNull();
    expect(normaliseOriginEntry('javascript://x')).toBeNull();
  });
});

describe('publishable keys and CORS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  // The two pk_ routes arrive with their issues; the rule is the auth hook's, so a route declaring
  // the same rule exercises it exactly.
  async function appWithPkRoute() {
    const app = await buildApp(t.deps);
    app.get('/v1/pk-probe', { config: { auth: { scope: 'products:read', publishable: true } } }, async () => ({ ok: true }));
    await app.ready();
    return app;
  }

  it('pk_ from an allowed origin passes, with CORS headers on the answer', async () => {
    const app = await appWithPkRoute();
    for (const origin of ['https://shop.example', 'https://a.brand.example']) {
      const res = await app.inject({ method: 'GET', url: '/v1/pk-probe', headers: { ...bearer(t.org.publishable_key), origin } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
    }
    await app.close();
  });

  it('pk_ from another origin or with no Origin: 403 origin', async () => {
    const app = await appWithPkRoute();
    const foreign = await app.inject({ method: 'GET', url: '/v1/pk-probe', headers: { ...bearer(t.org.publishable_key), origin: 'https://evil.example' } });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.details.reason).toBe('origin');
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const none = await app.inject({ method: 'GET', url: '/v1/pk-probe', headers: bearer(t.org.publishable_key) });
    expect(none.statusCode).toBe(403);
    expect(none.json().error.details.reason).toBe('origin');
    await app.close();
  });

  it('pk_ on any other route: 403 scope, even from an allowed origin', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/projects', headers: { ...bearer(t.org.publishable_key), origin: 'https://shop.example' } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.details.reason).toBe('scope');
  });

  it('pk_ stored scopes cannot exceed the cap', async () => {
    const app = await buildApp(t.deps);
    app.get('/v1/pk-write-probe', { config: { auth: { scope: 'products:write', publishable: true } } }, async () => ({ ok: true }));
    await app.ready();
    const res = await app.inject({ method: 'GET', url: '/v1/pk-write-probe', headers: { ...bearer(t.org.publishable_key), origin: 'https://shop.example' } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.details.reason).toBe('scope');
    await app.close();
  });

  it('preflight from an allowed origin gets CORS headers; from another origin none', async () => {
    const ok = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/beacon',
      headers: { origin: 'https://x.brand.example', 'access-control-request-method': 'POST' },
    });
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe('https://x.brand.example');
    expect(ok.headers['access-control-allow-headers']).toContain('Authorization');
    const bad = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/beacon',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(bad.headers['access-control-allow-origin']).toBeUndefined();
    const notBrowserRoute = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/api_keys',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' },
    });
    expect(notBrowserRoute.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('an allowed_domains change takes effect for preflights and keys', async () => {
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/v1/projects/${t.org.project_id}`,
      headers: bearer(t.org.secret_key),
      payload: { allowed_domains: ['https://new.example', 'https://*.brand.example'] },
    });
    expect(patch.statusCode).toBe(200);
    expect(patch.json().allowed_domains).toEqual(['https://new.example', 'https://*.brand.example']);
    const bad = await t.app.inject({
      method: 'PATCH',
      url: `/v1/projects/${t.org.project_id}`,
      headers: bearer(t.org.secret_key),
      payload: { allowed_domains: ['not an origin'] },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.details.errors[0].path).toBe('body.allowed_domains[0]');
  });
});

describe('same-origin publishable requests', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('a same-origin browser request (no Origin, Sec-Fetch-Site: same-origin) is judged by the API host', async () => {
    const app = await buildApp(t.deps);
    app.get('/v1/pk-probe', { config: { auth: { scope: 'products:read', publishable: true } } }, async () => ({ ok: true }));
    await app.ready();
    // The project is set before this app's first request: each app caches resolved keys for a few seconds.
    await t.app.inject({
      method: 'PATCH',
      url: `/v1/projects/${t.org.project_id}`,
      headers: bearer(t.org.secret_key),
      payload: { allowed_domains: ['http://api.example'] },
    });
    const headers = { ...bearer(t.org.publishable_key), 'sec-fetch-site': 'same-origin' };
    const refused = await app.inject({ method: 'GET', url: '/v1/pk-probe', headers: { ...headers, host: 'other.example' } });
    expect(refused.statusCode).toBe(403);
    const allowed = await app.inject({ method: 'GET', url: '/v1/pk-probe', headers: { ...headers, host: 'api.example' } });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBeUndefined();
    const crossSite = await app.inject({ method: 'GET', url: '/v1/pk-probe', headers: { ...bearer(t.org.publishable_key), 'sec-fetch-site': 'cross-site', host: 'api.example' } });
    expect(crossSite.statusCode).toBe(403);
    await app.close();
  });
});
