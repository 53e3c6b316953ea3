import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.js';
import { expectEnvelope } from '../../test/checks.js';
import { embedRead, SHOP } from '../../test/embed.js';
import { seedProduct } from '../../test/products.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const embed = (id: string, headers: Record<string, string> = {}) => embedRead(t, id, headers);

describe('embed: what is not there is the envelope, readable by the element', () => {
  it('an unknown product, a draft, or a model not ready is 404 with CORS for the shop', async () => {
    const draft = await seedProduct(t, t.org.org_id);
    const generating = await seedProduct(t, t.org.org_id, { status: 'published', modelStatus: 'generating' });
    for (const id of ['prod_00000000000000000000000000', draft, generating]) {
      const res = await embed(id);
      expectEnvelope(res, 404, 'not_found');
      expect(res.headers['access-control-allow-origin'], id).toBe(SHOP);
    }
  });

  it('a malformed Authorization header or none at all is 401', async () => {
    const id = await seedProduct(t, t.org.org_id, { status: 'published' });
    expectEnvelope(await embed(id, { authorization: 'Basic abc' }), 401, 'unauthenticated');
    expectEnvelope(await t.app.inject({ method: 'GET', url: `/embed/products/${id}`, headers: { origin: SHOP } }), 401, 'unauthenticated');
  });

  it('an old bundle version, an unknown decoder or a climbing decoder path is 404', async () => {
    for (const url of ['/embed/embed.0000000000.js', '/embed/decoders/nothing.wasm', '/embed/decoders/../../package.json', '/embed/decoders/%2e%2e/%2e%2e/package.json']) {
      expectEnvelope(await t.app.inject({ method: 'GET', url }), 404, 'not_found');
    }
  });
});
