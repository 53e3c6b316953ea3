import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.js';
import { DASHBOARD_DIR } from './dashboard-web.routes.js';

const built = existsSync(join(DASHBOARD_DIR, 'index.html'));
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe.skipIf(!built)('dashboard static files', () => {
  it('serves index.html at / and at client routes, never cached, with a strict policy', async () => {
    for (const url of ['/', '/products', '/products/prod_123', '/settings/keys?x=1']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.body).toContain('<div id="root">');
    }
  });

  it('serves hashed assets as immutable', async () => {
    const asset = readdirSync(join(DASHBOARD_DIR, 'assets')).find((f) => f.endsWith('.js'))!;
    const res = await t.app.inject({ method: 'GET', url: `/assets/${asset}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('javascript');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });
});
