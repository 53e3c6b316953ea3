import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.js';
import { expectEnvelope } from '../../test/checks.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('capture mat: requests it does not serve', () => {
  it('a stale ETag gets the whole PDF again, not a 304', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/capture-mat.pdf', headers: { 'if-none-match': '"stale"' } });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('a path below it or another extension is the JSON 404, never the dashboard', async () => {
    for (const url of ['/capture-mat.pdf/x', '/capture-mat.png', '/capture-mat']) {
      const res = await t.app.inject({ method: 'GET', url });
      expectEnvelope(res, 404, 'not_found');
    }
  });

  it('a write to it finds no route', async () => {
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/capture-mat.pdf', payload: {} }), 404, 'not_found');
    expectEnvelope(await t.app.inject({ method: 'DELETE', url: '/capture-mat.pdf' }), 404, 'not_found');
  });
});
