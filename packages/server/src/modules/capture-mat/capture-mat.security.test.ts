import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('capture mat: public by design, and the same for everyone', () => {
  it('no key, a bad key, a revoked-looking key, a publishable key from anywhere and a forged session all get the same bytes', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/capture-mat.pdf' });
    expect(plain.statusCode).toBe(200);
    for (const headers of [
      bearer('sk_' + 'x'.repeat(32)),
      { authorization: 'Basic abc' },
      { ...bearer(t.org.publishable_key), origin: 'https://elsewhere.example' },
      bearer(t.org.secret_key),
      { cookie: 'plinth_session=forged' },
    ]) {
      const res = await t.app.inject({ method: 'GET', url: '/capture-mat.pdf', headers });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(plain.rawPayload)).toBe(true);
      expect(res.headers.etag).toBe(plain.headers.etag);
      // cacheable by anyone, so nothing in it may depend on who asked
      expect(res.headers['cache-control']).toBe('public, max-age=86400');
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.headers.vary ?? '').not.toMatch(/authorization|cookie/i);
    }
  });

  it('is shown inline as a PDF, never as a page of this origin', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/capture-mat.pdf' });
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe('inline; filename="plinth-capture-mat.pdf"');
  });
});
