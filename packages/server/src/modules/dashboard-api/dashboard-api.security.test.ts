import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('dashboard api: tenancy, roles, keys and origins', () => {
  it("another organization's ids are 404 on every route", async () => {
    const other = await t.bootstrap();
    const m = await t.member(t.org.org_id, 'owner');
    const cookie = await sessionCookie(t.app, m.email, m.password);
    const base = `/dashboard/api/organizations/${other.org_id}`;
    const calls = [
      { method: 'GET' as const, url: `${base}/members` },
      { method: 'GET' as const, url: `${base}/credits` },
      { method: 'POST' as const, url: `${base}/members`, payload: { email: 'x@example.test', role: 'member' } },
      { method: 'PATCH' as const, url: `${base}/members/${other.user_id}`, payload: { role: 'member' } },
      { method: 'DELETE' as const, url: `${base}/members/${other.user_id}` },
    ];
    for (const call of calls) {
      const res = await t.app.inject({ ...call, headers: { cookie } });
      expect(res.statusCode, call.url).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
  });

  it('a member reads members but cannot manage them, nor API keys', async () => {
    const m = await t.member(t.org.org_id, 'member');
    const cookie = await sessionCookie(t.app, m.email, m.password);
    const url = `/dashboard/api/organizations/${t.org.org_id}/members`;
    expect((await t.app.inject({ method: 'GET', url, headers: { cookie } })).statusCode).toBe(200);
    const add = await t.app.inject({ method: 'POST', url, headers: { cookie }, payload: { email: 'y@example.test', role: 'member' } });
    expect(add.statusCode).toBe(403);
    expect(add.json().error.details.reason).toBe('role');
    const promote = await t.app.inject({ method: 'PATCH', url: `${url}/${m.userId}`, headers: { cookie }, payload: { role: 'owner' } });
    expect(promote.statusCode).toBe(403);
    const key = await t.app.inject({ method: 'POST', url: '/v1/api_keys', headers: { cookie }, payload: { type: 'secret', name: 'mine' } });
    expect(key.statusCode).toBe(403);
  });

  it('an admin cannot grant or take away ownership', async () => {
    const a = await t.member(t.org.org_id, 'admin');
    const cookie = await sessionCookie(t.app, a.email, a.password);
    const url = `/dashboard/api/organizations/${t.org.org_id}/members`;
    const self = await t.app.inject({ method: 'PATCH', url: `${url}/${a.userId}`, headers: { cookie }, payload: { role: 'owner' } });
    expect(self.statusCode).toBe(403);
    const demote = await t.app.inject({ method: 'PATCH', url: `${url}/${t.org.user_id}`, headers: { cookie }, payload: { role: 'member' } });
    expect(demote.statusCode).toBe(403);
    const member = await t.app.inject({ method: 'POST', url, headers: { cookie }, payload: { email: 'z@example.test', role: 'member' } });
    expect(member.statusCode).toBe(201);
  });

  it('API keys never reach the dashboard routes', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard/api/me', headers: bearer(t.org.secret_key) });
    expect(res.statusCode).toBe(403);
    const pk = await t.app.inject({ method: 'GET', url: '/dashboard/api/me', headers: { ...bearer(t.org.publishable_key), origin: 'https://shop.example' } });
    expect(pk.statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/dashboard/api/me' })).statusCode).toBe(401);
  });

  it('a state change with a session cookie from another origin is refused; same origin and API keys are not', async () => {
    const m = await t.member(t.org.org_id, 'owner');
    const cookie = await sessionCookie(t.app, m.email, m.password);
    const own = new URL(t.config.publicUrl).origin;
    const create = (headers: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/v1/projects', headers, payload: { name: 'P', allowed_domains: [] } });
    const evil = await create({ cookie, origin: 'https://evil.example' });
    expect(evil.statusCode).toBe(403);
    expect(evil.json().error).toMatchObject({ code: 'forbidden', details: { reason: 'origin' } });
    const crossSite = await create({ cookie, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.statusCode).toBe(403);
    for (const path of [`/dashboard/api/organizations/${t.org.org_id}/members`, '/auth/logout']) {
      const res = await t.app.inject({ method: 'POST', url: path, headers: { cookie, origin: 'https://evil.example' }, payload: {} });
      expect(res.statusCode, path).toBe(403);
    }
    expect((await create({ cookie, origin: own })).statusCode).toBe(201);
    expect((await create({ cookie, origin: 'http://localhost:80', host: 'localhost:80' })).statusCode).toBe(201);
    // An API key is not a cookie: a browser cannot be made to send it.
    expect((await create({ ...bearer(t.org.secret_key), origin: 'https://evil.example' })).statusCode).toBe(201);
    // A read is never refused for its origin.
    expect((await t.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie, origin: 'https://evil.example' } })).statusCode).toBe(200);
  });
});
