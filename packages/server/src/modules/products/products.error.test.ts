import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, send, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';
import { expectEnvelope, snapshot } from '../../test/checks.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const call = (method: Parameters<typeof send>[1], url: string, payload?: object) => send(t, method, url, payload);
const unknown = 'prod_00000000000000000000000000';

describe('products: bad input is the envelope with its code, and changes nothing', () => {
  it('bad list filters: 422 validation_failed naming the field', async () => {
    for (const [qs, path] of [
      ['tag_match=some', 'query.tag_match'],
      ['status=gone', 'query.status'],
      ['limit=0', 'query.limit'],
      ['model_status=melting', 'query.model_status'],
    ]) {
      const error = expectEnvelope(await call('GET', `/v1/products?${qs}`), 422, 'validation_failed');
      expect(error.details.errors.some((e: { path: string }) => e.path === path || e.path.startsWith(`${path}[`)), qs).toBe(true);
    }
  });

  it('an unknown id is 404 not_found on every id route', async () => {
    expectEnvelope(await call('GET', `/v1/products/${unknown}`), 404, 'not_found');
    expectEnvelope(await call('PATCH', `/v1/products/${unknown}`, { title: 'x' }), 404, 'not_found');
    expectEnvelope(await call('DELETE', `/v1/products/${unknown}`), 404, 'not_found');
    expectEnvelope(await call('POST', `/v1/products/${unknown}/order`), 404, 'not_found');
  });

  it('a PATCH that is empty, has an unknown field or a too long title is 422, and the product is unchanged', async () => {
    const id = await seedProduct(t, t.org.org_id, { title: 'Kept', tags: ['kept'] });
    const before = (await call('GET', `/v1/products/${id}`)).json();
    expectEnvelope(await call('PATCH', `/v1/products/${id}`, {}), 422, 'validation_failed');
    const extra = expectEnvelope(await call('PATCH', `/v1/products/${id}`, { title: 'New', colour: 'red' }), 422, 'validation_failed');
    expect(JSON.stringify(extra.details)).toContain('colour');
    expectEnvelope(await call('PATCH', `/v1/products/${id}`, { title: 'x'.repeat(5000) }), 422, 'validation_failed');
    expect((await call('GET', `/v1/products/${id}`)).json()).toEqual(before);
  });

  it('a custom_id another product holds: 409 conflict, and neither product changes', async () => {
    const holder = await seedProduct(t, t.org.org_id, { customId: 'SKU-HELD' });
    const id = await seedProduct(t, t.org.org_id, { customId: 'SKU-MINE' });
    const before = await snapshot(t);
    expectEnvelope(await call('PATCH', `/v1/products/${id}`, { custom_id: 'SKU-HELD' }), 409, 'conflict');
    expect((await call('GET', `/v1/products/${id}`)).json().custom_id).toBe('SKU-MINE');
    expect((await call('GET', `/v1/products/${holder}`)).json().custom_id).toBe('SKU-HELD');
    expect(await snapshot(t)).toEqual(before);
  });

  it('a create with no source, two sources or a private URL is 422 and writes nothing', async () => {
    const before = await snapshot(t);
    for (const payload of [{ title: 'no source' }, { image_urls: ['https://93.184.216.34/a.jpg'], model_url: 'https://93.184.216.34/m.glb' }, { image_urls: ['http://10.0.0.1/a.jpg'] }]) {
      expectEnvelope(await call('POST', '/v1/products', payload), 422, 'validation_failed');
    }
    expect(await snapshot(t)).toEqual(before);
  });

  it('a malformed resume token is 400 invalid_request; a used one 409 conflict, debited once', async () => {
    expectEnvelope(await call('POST', '/v1/products', { resume_token: 'rt_not-a-token' }), 400, 'invalid_request');
    const quote = (await call('POST', '/v1/products', { image_urls: ['https://93.184.216.34/once.jpg'] })).json();
    expect((await call('POST', '/v1/products', { resume_token: quote.resume_token })).statusCode).toBe(202);
    const after = await snapshot(t);
    const replay = expectEnvelope(await call('POST', '/v1/products', { resume_token: quote.resume_token }), 409, 'conflict');
    expect(replay.details.reason).toBe('resume_token_used');
    expect(await snapshot(t)).toEqual(after);
  });

  it('publish and batch delete with no ids, or a non-JSON body, are refused', async () => {
    expectEnvelope(await call('POST', '/v1/products/publish', { ids: [] }), 422, 'validation_failed');
    expectEnvelope(await call('DELETE', '/v1/products'), 422, 'validation_failed');
    const raw = await t.app.inject({
      method: 'POST',
      url: '/v1/products',
      headers: { ...bearer(t.org.secret_key), 'content-type': 'application/json' },
      payload: '{"image_urls": [',
    });
    expectEnvelope(raw, 400, 'invalid_request');
  });

  it('an order for a product that cannot take one is 409 with its reason, and debits nothing', async () => {
    const id = await seedProduct(t, t.org.org_id, { modelStatus: 'generating' });
    const before = await snapshot(t);
    const error = expectEnvelope(await call('POST', `/v1/products/${id}/order`), 409, 'conflict');
    expect(error.details.reason).toBe('generating');
    expect(await snapshot(t)).toEqual(before);
  });
});
