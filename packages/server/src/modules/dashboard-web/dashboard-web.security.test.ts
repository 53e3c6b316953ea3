import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.js';
import { expectEnvelope } from '../../test/checks.js';

let t: TestApp;
let built = false;
beforeAll(async () => {
  t = await createTestApp();
  built = (await t.app.inject({ method: 'GET', url: '/' })).statusCode === 200;
});
afterAll(async () => t?.close());

describe('dashboard static files: nothing outside the build', () => {
  it('climbing out of the build directory, however spelt, is a 404 that shows no file', async () => {
    for (const url of ['/..%2f..%2fpackage.json', '/assets/..%2f..%2f..%2f..%2fpackage.json', '/%2e%2e/%2e%2e/package.json', '/assets/%2e%2e%5c%2e%2e%5cpackage.json']) {
      const res = await t.app.inject({ method: 'GET', url });
      expectEnvelope(res, 404, 'not_found');
      expect(res.body, url).not.toContain('"workspaces"');
      expect(res.body, url).not.toContain('"dependencies"');
    }
  });

  it('every page it serves forbids framing and runs only its own scripts', async (ctx) => {
    if (!built) ctx.skip();
    for (const url of ['/', '/products/prod_x', '/settings/keys']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('same-origin');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).not.toContain("'unsafe-eval'");
    }
  });

  it('serves the same page whoever asks: a cookie or a key changes nothing and sets nothing', async (ctx) => {
    if (!built) ctx.skip();
    const plain = await t.app.inject({ method: 'GET', url: '/products' });
    const withCredentials = await t.app.inject({ method: 'GET', url: '/products', headers: { cookie: 'plinth_session=forged', authorization: 'Bearer sk_forged' } });
    expect(withCredentials.statusCode).toBe(200);
    expect(withCredentials.body).toBe(plain.body);
    expect(withCredentials.headers['set-cookie']).toBeUndefined();
  });
});
