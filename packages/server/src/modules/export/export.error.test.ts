import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, send, type TestApp } from '../../test/app.js';
import { expectEnvelope, snapshot } from '../../test/checks.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ PLINTH_EXPORT_SYNC_LIMIT: '24' });
});
afterAll(async () => t?.close());

const get = (url: string) => send(t, 'GET', url);

describe('export: bad requests are the envelope and write nothing', () => {
  it('201 products is 422', async () => {
    const ids = Array.from({ length: 201 }, (_, i) => `ids=prod_${i}`).join('&');
    expectEnvelope(await get(`/v1/products/export?${ids}`), 422, 'validation_failed');
  });

  it('an unknown review status, preset, e-mail or parameter is 422 naming it', async () => {
    const before = await snapshot(t);
    for (const [qs, field] of [
      ['image_review_status=maybe', 'image_review_status'],
      ['preset=billboard', 'preset'],
      ['notify_email=not-an-address', 'notify_email'],
      ['strict=perhaps', 'strict'],
      ['colour=red', 'colour'],
    ]) {
      const error = expectEnvelope(await get(`/v1/products/export?${qs}`), 422, 'validation_failed');
      expect(JSON.stringify(error.details), qs).toContain(field);
    }
    expect(await snapshot(t)).toEqual(before);
  });

  it('a download link without its signature or expiry is 422; a forged or expired one 404', async () => {
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/exports/exp_nope/download' }), 422, 'validation_failed');
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/exports/exp_nope/download?expires=abc&signature=x' }), 422, 'validation_failed');
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/exports/exp_nope/download?expires=9999999999&signature=abc' }), 404, 'not_found');
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/exports/exp_nope/download?expires=1&signature=abc' }), 404, 'not_found');
  });

  it('a selection of no products is an empty archive, not an error', async () => {
    const res = await get('/v1/products/export?ids=prod_00000000000000000000000000');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
  });
});
