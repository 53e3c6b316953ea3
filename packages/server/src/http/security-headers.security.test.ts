import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/app.js';
import { contentSecurityPolicy } from './security-headers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

function expectStrictPage(headers: Record<string, unknown>) {
  const csp = String(headers['content-security-policy'] ?? '');
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("object-src 'none'");
  expect(csp).toMatch(/(^|; )script-src 'self'/);
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  // 'wasm-unsafe-eval' (WebAssembly for the model decoders) is allowed; JavaScript eval is not.
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-eval'/);
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-content-type-options']).toBe('nosniff');
}

describe('pages Plinth serves cannot be framed and run only their own scripts', () => {
  it('/demo/{id}, found or not, as HTML and as JSON', async () => {
    const html = await t.app.inject({ method: 'GET', url: '/demo/prod_unknown', headers: { accept: 'text/html' } });
    expect(html.statusCode).toBe(404);
    expectStrictPage(html.headers);
    const json = await t.app.inject({ method: 'GET', url: '/demo/prod_unknown', headers: { accept: 'application/json' } });
    expectStrictPage(json.headers);
  });

  it('/docs and its assets', async () => {
    for (const url of ['/docs', '/docs/', '/docs/js/scalar.js']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBeLessThan(400);
      expectStrictPage(res.headers);
    }
  });

  it('a page may add sources but never allow framing', () => {
    const csp = contentSecurityPolicy({ 'img-src': ['blob:'], 'frame-ancestors': ['*'], 'object-src': ['*'] });
    expect(csp).toContain("img-src 'self' data: blob:");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
  });
});
