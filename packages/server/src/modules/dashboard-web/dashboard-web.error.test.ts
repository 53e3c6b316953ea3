import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.js';
import { expectEnvelope } from '../../test/checks.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('dashboard static files: what is not there', () => {
  it("an unknown path under the API's prefixes is the API's JSON 404, never the dashboard's page", async () => {
    for (const url of ['/v1/nope', '/auth/nope', '/files/nope', '/embed/nope/x', '/docs/nope/x', '/demo/nope/x', '/dashboard/api/nope', '/capture-mat.pdf/x']) {
      const res = await t.app.inject({ method: 'GET', url });
      expectEnvelope(res, 404, 'not_found');
      expect(res.headers['content-type'], url).toContain('application/json');
    }
  });

  it('a missing file (a name with an extension) is a 404 envelope, not index.html', async () => {
    for (const url of ['/assets/missing.js', '/favicon-missing.ico', '/robots-missing.txt']) {
      const res = await t.app.inject({ method: 'GET', url });
      expectEnvelope(res, 404, 'not_found');
      expect(res.body, url).not.toContain('<div id="root">');
    }
  });
});
