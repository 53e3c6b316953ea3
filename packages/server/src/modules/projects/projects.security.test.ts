import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';
import { authMatrix, byId } from '../../test/auth-matrix.js';
import { expectEnvelope } from '../../test/checks.js';

const unknown = 'proj_00000000000000000000000000';
const project = async (t: TestApp, _key: string, orgId: string) => {
  const row = await t.deps.database.db.selectFrom('projects').select('id').where('org_id', '=', orgId).executeTakeFirstOrThrow();
  return { projectId: row.id };
};

authMatrix('projects', [
  { name: 'GET /v1/projects', scope: null, request: () => ({ method: 'GET', url: '/v1/projects' }) },
  { name: 'POST /v1/projects', scope: null, request: () => ({ method: 'POST', url: '/v1/projects', payload: { name: 'matrix' } }) },
  { name: 'GET /v1/projects/:id', scope: null, ...byId('GET', (id) => `/v1/projects/${id}`, { idKey: 'projectId', unknown, setup: project }) },
  { name: 'PATCH /v1/projects/:id', scope: null, ...byId('PATCH', (id) => `/v1/projects/${id}`, { idKey: 'projectId', unknown, setup: project, payload: { name: 'renamed' } }) },
]);

describe('projects: roles', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('a member reads projects but may not create or change one (403 role); the project is unchanged', async () => {
    const m = await t.member(t.org.org_id, 'member');
    const cookie = await sessionCookie(t.app, m.email, m.password);
    expect((await t.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie } })).statusCode).toBe(200);
    const created = expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/projects', headers: { cookie }, payload: { name: 'nope' } }), 403, 'forbidden');
    expect(created.details.reason).toBe('role');
    const before = (await t.app.inject({ method: 'GET', url: `/v1/projects/${t.org.project_id}`, headers: bearer(t.org.secret_key) })).json();
    const patched = expectEnvelope(
      await t.app.inject({ method: 'PATCH', url: `/v1/projects/${t.org.project_id}`, headers: { cookie }, payload: { allowed_domains: ['https://evil.example'] } }),
      403,
      'forbidden',
    );
    expect(patched.details.reason).toBe('role');
    expect((await t.app.inject({ method: 'GET', url: `/v1/projects/${t.org.project_id}`, headers: bearer(t.org.secret_key) })).json()).toEqual(before);
  });

  it('a session change from another site is refused (403 origin)', async () => {
    const admin = await t.member(t.org.org_id, 'admin');
    const cookie = await sessionCookie(t.app, admin.email, admin.password);
    const res = await t.app.inject({ method: 'POST', url: '/v1/projects', headers: { cookie, origin: 'https://evil.example' }, payload: { name: 'csrf' } });
    expect(expectEnvelope(res, 403, 'forbidden').details.reason).toBe('origin');
  });
});
