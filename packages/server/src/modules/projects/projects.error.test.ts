import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, send, sessionCookie, type TestApp } from '../../test/app.js';
import { expectEnvelope, snapshot } from '../../test/checks.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const call = (method: Parameters<typeof send>[1], url: string, payload?: object) => send(t, method, url, payload);
const current = async () => (await call('GET', `/v1/projects/${t.org.project_id}`)).json();

describe('projects: bad input', () => {
  it('an unknown id is 404 not_found for GET and PATCH', async () => {
    expectEnvelope(await call('GET', '/v1/projects/proj_00000000000000000000000000'), 404, 'not_found');
    expectEnvelope(await call('PATCH', '/v1/projects/proj_00000000000000000000000000', { name: 'x' }), 404, 'not_found');
  });

  it('a create without a name, with an empty one or an unknown field is 422 and makes no project', async () => {
    const before = await snapshot(t, ['projects']);
    for (const payload of [{}, { name: '' }, { name: 'x', colour: 'red' }, { name: 'x', allowed_domains: 'https://shop.example' }]) {
      expectEnvelope(await call('POST', '/v1/projects', payload), 422, 'validation_failed');
    }
    expect(await snapshot(t, ['projects'])).toEqual(before);
  });

  it('a domain that is not an origin is 422 naming its index; nothing changes', async () => {
    const before = await current();
    const error = expectEnvelope(
      await call('PATCH', `/v1/projects/${t.org.project_id}`, { allowed_domains: ['https://ok.example', 'shop.example/path', 'javascript:alert(1)'] }),
      422,
      'validation_failed',
    );
    expect(error.details.errors.map((e: { path: string }) => e.path)).toEqual(['body.allowed_domains[1]', 'body.allowed_domains[2]']);
    expect(await current()).toEqual(before);
    const created = expectEnvelope(await call('POST', '/v1/projects', { name: 'bad', allowed_domains: ['ftp://x.example'] }), 422, 'validation_failed');
    expect(created.details.errors[0].path).toBe('body.allowed_domains[0]');
  });

  it('bad paging is 422', async () => {
    expectEnvelope(await call('GET', '/v1/projects?limit=0'), 422, 'validation_failed');
    expectEnvelope(await call('GET', '/v1/projects?offset=-1'), 422, 'validation_failed');
  });

  it('a caller of several organizations must name one with org_id to create (422 org_id_required)', async () => {
    // An owner of two organizations signs in: the session reaches both.
    const owner = await t.member(t.org.org_id, 'owner');
    const other = await t.bootstrap({ email: owner.email, password: owner.password });
    const cookie = await sessionCookie(t.app, owner.email, owner.password);
    const before = await snapshot(t, ['projects']);
    const res = await t.app.inject({ method: 'POST', url: '/v1/projects', headers: { cookie }, payload: { name: 'Where?' } });
    expectEnvelope(res, 422, 'org_id_required');
    expect(await snapshot(t, ['projects'])).toEqual(before);
    const named = await t.app.inject({ method: 'POST', url: '/v1/projects', headers: { cookie }, payload: { name: 'There', org_id: other.org_id } });
    expect(named.statusCode, named.body).toBe(201);
    expect(named.json().org_id).toBe(other.org_id);
  });
});
