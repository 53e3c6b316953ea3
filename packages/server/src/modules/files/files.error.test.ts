import { afterAll, beforeAll, describe, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { expectEnvelope } from '../../test/checks.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('files: a file that is not there is the 404 envelope', () => {
  it('an unknown name, on either route', async () => {
    const name = `orgs/${t.org.org_id}/uploads/${'0'.repeat(32)}.png`;
    expectEnvelope(await t.app.inject({ method: 'GET', url: `/v1/files/${name}`, headers: bearer(t.org.secret_key) }), 404, 'not_found');
    expectEnvelope(await t.app.inject({ method: 'GET', url: `/files/${name}` }), 404, 'not_found');
  });

  it('an empty or climbing path is 404; an over-long one 414 invalid_request', async () => {
    for (const url of ['/v1/files/', '/v1/files/orgs/../x', '/v1/files/orgs/%2e%2e/x']) {
      expectEnvelope(await t.app.inject({ method: 'GET', url, headers: bearer(t.org.secret_key) }), 404, 'not_found');
    }
    for (const url of ['/files/', '/files/orgs/%2e%2e/x']) {
      expectEnvelope(await t.app.inject({ method: 'GET', url }), 404, 'not_found');
    }
    expectEnvelope(await t.app.inject({ method: 'GET', url: `/files/${'a'.repeat(20_000)}` }), 414, 'invalid_request');
  });

  it('files are read only: a write finds no route (404 envelope)', async () => {
    const res = await t.app.inject({ method: 'PUT', url: `/v1/files/orgs/${t.org.org_id}/uploads/x.png`, headers: bearer(t.org.secret_key), payload: 'x' });
    expectEnvelope(res, 404, 'not_found');
  });
});
