import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, send, type TestApp } from '../../test/app.js';
import { expectEnvelope, snapshot } from '../../test/checks.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const create = (payload: object) => send(t, 'POST', '/v1/api_keys', payload);

describe('keys: bad input makes no key', () => {
  it('unknown scopes are 422 naming them', async () => {
    const before = await snapshot(t, ['api_keys']);
    const error = expectEnvelope(await create({ scopes: ['products:read', 'admin:all'] }), 422, 'validation_failed');
    expect(error.details.errors[0].message).toContain('admin:all');
    expect(await snapshot(t, ['api_keys'])).toEqual(before);
  });

  it('a publishable key without a project, or with an unknown one, is refused', async () => {
    const before = await snapshot(t, ['api_keys']);
    const missing = expectEnvelope(await create({ type: 'publishable' }), 422, 'validation_failed');
    expect(missing.details.errors[0].path).toBe('body.project_id');
    expectEnvelope(await create({ type: 'publishable', project_id: 'proj_00000000000000000000000000' }), 404, 'not_found');
    expect(expectEnvelope(await create({ project_id: t.org.project_id }), 422, 'validation_failed').details.errors[0].path).toBe('body.project_id');
    expect(await snapshot(t, ['api_keys'])).toEqual(before);
  });

  it('an unknown type, an unknown field or a too long name is 422', async () => {
    const before = await snapshot(t, ['api_keys']);
    expectEnvelope(await create({ type: 'master' }), 422, 'validation_failed');
    expectEnvelope(await create({ colour: 'red' }), 422, 'validation_failed');
    expectEnvelope(await create({ name: 'x'.repeat(201) }), 422, 'validation_failed');
    expectEnvelope(await create({ org_ids: [] }), 422, 'validation_failed');
    expect(await snapshot(t, ['api_keys'])).toEqual(before);
  });

  it('revoking an unknown key is 404; revoking twice keeps the first revocation time', async () => {
    expectEnvelope(await send(t, 'DELETE', '/v1/api_keys/key_00000000000000000000000000'), 404, 'not_found');
    const key = (await create({ name: 'twice' })).json();
    const first = await send(t, 'DELETE', `/v1/api_keys/${key.id}`);
    expect(first.statusCode).toBe(200);
    const second = await send(t, 'DELETE', `/v1/api_keys/${key.id}`);
    expect(second.statusCode).toBe(200);
    expect(second.json().revoked_at).toBe(first.json().revoked_at);
  });

  it('a key cannot revoke itself (409 self_revoke), and still works', async () => {
    const key = (await create({ name: 'self' })).json();
    const res = await send(t, 'DELETE', `/v1/api_keys/${key.id}`, undefined, key.key);
    expect(expectEnvelope(res, 409, 'conflict').details.reason).toBe('self_revoke');
    expect((await send(t, 'GET', '/v1/api_keys', undefined, key.key)).statusCode).toBe(200);
  });

  it('bad paging is 422', async () => {
    expectEnvelope(await send(t, 'GET', '/v1/api_keys?limit=1000'), 422, 'validation_failed');
  });
});
