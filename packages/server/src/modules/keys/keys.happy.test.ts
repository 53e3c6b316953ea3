import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';
import { tokenHash } from '../auth/passwords.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const post = (key: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/api_keys', headers: { ...bearer(key), ...headers }, payload });

describe('API keys', () => {
  it('creates a secret key whose material is shown once and stored only as a hash', async () => {
    const res = await post(t.org.secret_key, { name: 'ci', scopes: ['products:read', 'webhooks:manageWebhook'] });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created.key).toMatch(/^sk_[A-Za-z0-9_-]{32}$/);
    expect(created.scopes).toEqual(['products:read', 'webhooks:manage']);
    expect(created.org_ids).toEqual([t.org.org_id]);
    expect(created.key.startsWith(created.prefix)).toBe(true);

    const list = await t.app.inject({ method: 'GET', url: '/v1/api_keys', headers: bearer(t.org.secret_key) });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(created.key);
    const listed = list.json().data.find((k: { id: string }) => k.id === created.id);
    expect(listed.key).toBeUndefined();
    expect(listed.prefix).toBe(created.prefix);

    const row = await t.deps.database.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(tokenHash(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);

    const works = await t.app.inject({ method: 'GET', url: '/v1/api_keys', headers: bearer(created.key) });
    expect(works.statusCode).toBe(403); // restricted keys cannot manage keys
  });

  it('creates a publishable key for a project', async () => {
    const ok = await post(t.org.secret_key, { type: 'publishable', project_id: t.org.project_id });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().key).toMatch(/^pk_/);
    expect(ok.json().project_id).toBe(t.org.project_id);
  });

  it('a revoked key answers 401 at once', async () => {
    const created = (await post(t.org.secret_key, {})).json();
    expect((await t.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(created.key) })).statusCode).toBe(200);
    const del = await t.app.inject({ method: 'DELETE', url: `/v1/api_keys/${created.id}`, headers: bearer(t.org.secret_key) });
    expect(del.statusCode).toBe(200);
    expect(del.json().revoked_at).toBeTruthy();
    const after = await t.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(created.key) });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('unauthenticated');
  });

  it('a secret key for several organizations needs the creator to manage each, and reads then need org_id', async () => {
    const second = await t.bootstrap({ email: (await ownerEmail()) });
    const res = await post(second.secret_key, { org_ids: [t.org.org_id, second.org_id] });
    // the second org's key reaches only its own organization
    expect(res.statusCode).toBe(404);
    const cookie = await sessionCookie(t.app, await ownerEmail(), 'correct horse battery');
    const multi = await t.app.inject({
      method: 'POST',
      url: '/v1/api_keys',
      headers: { cookie },
      payload: { org_ids: [t.org.org_id, second.org_id] },
    });
    expect(multi.statusCode).toBe(201);
    const key = multi.json().key;
    const ambiguous = await t.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(key) });
    expect(ambiguous.statusCode).toBe(422);
    expect(ambiguous.json().error.code).toBe('org_id_required');
    const all = await t.app.inject({ method: 'GET', url: '/v1/projects?scope=all', headers: bearer(key) });
    expect(all.json().data.map((p: { org_id: string }) => p.org_id).sort()).toEqual([t.org.org_id, second.org_id].sort());
    const one = await t.app.inject({ method: 'GET', url: `/v1/projects?org_id=${second.org_id}`, headers: bearer(key) });
    expect(one.json().data.every((p: { org_id: string }) => p.org_id === second.org_id)).toBe(true);
  });
});

async function ownerEmail(): Promise<string> {
  const row = await t.deps.database.db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select('users.email')
    .where('memberships.org_id', '=', t.org.org_id)
    .where('memberships.role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return row.email;
}
