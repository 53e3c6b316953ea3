import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authMatrix, byId } from '../../test/auth-matrix.js';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';

async function makeKey(t: TestApp, key: string, orgId: string) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/api_keys', headers: bearer(key), payload: { org_id: orgId, name: 'victim' } });
  return { keyId: (res.json() as { id: string }).id };
}

authMatrix('keys', [
  { name: 'GET /v1/api_keys', scope: null, request: () => ({ method: 'GET', url: '/v1/api_keys' }) },
  { name: 'POST /v1/api_keys', scope: null, request: () => ({ method: 'POST', url: '/v1/api_keys', payload: {} }) },
  { name: 'DELETE /v1/api_keys/:id', scope: null, ...byId('DELETE', (id) => `/v1/api_keys/${id}`, { idKey: 'keyId', unknown: 'key_00000000000000000000000000', setup: makeKey }) },
]);

describe('keys: roles', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());
  const post = (key: string, payload: object) => t.app.inject({ method: 'POST', url: '/v1/api_keys', headers: bearer(key), payload });

  it('only owners and admins create or revoke keys (403 role)', async () => {
    const member = await t.member(t.org.org_id, 'member');
    const cookie = await sessionCookie(t.app, member.email, member.password);
    const create = await t.app.inject({ method: 'POST', url: '/v1/api_keys', headers: { cookie }, payload: {} });
    expect(create.statusCode).toBe(403);
    expect(create.json().error.details.reason).toBe('role');
    const victim = (await post(t.org.secret_key, {})).json();
    const revoke = await t.app.inject({ method: 'DELETE', url: `/v1/api_keys/${victim.id}`, headers: { cookie } });
    expect(revoke.statusCode).toBe(403);
    expect(revoke.json().error.details.reason).toBe('role');

    const admin = await t.member(t.org.org_id, 'admin');
    const adminCookie = await sessionCookie(t.app, admin.email, admin.password);
    const ok = await t.app.inject({ method: 'POST', url: '/v1/api_keys', headers: { cookie: adminCookie }, payload: {} });
    expect(ok.statusCode).toBe(201);
  });
});
