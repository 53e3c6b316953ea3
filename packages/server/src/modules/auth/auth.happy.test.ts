import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, sessionCookie, type TestApp } from '../../test/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('dashboard sessions', () => {
  it('login sets an HttpOnly SameSite=Lax cookie that reaches every organization of the user', async () => {
    const m = await t.member(t.org.org_id, 'admin');
    const second = await t.bootstrap({ email: m.email, password: m.password });
    const res = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: m.email, password: m.password } });
    expect(res.statusCode).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toContain('plinth_session=');
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    const cookie = await sessionCookie(t.app, m.email, m.password);
    const all = await t.app.inject({ method: 'GET', url: '/v1/projects?scope=all', headers: { cookie } });
    expect(all.statusCode).toBe(200);
    const orgs = new Set(all.json().data.map((p: { org_id: string }) => p.org_id));
    expect(orgs).toEqual(new Set([t.org.org_id, second.org_id]));
  });

  it('logout ends the session', async () => {
    const m = await t.member(t.org.org_id, 'member');
    const cookie = await sessionCookie(t.app, m.email, m.password);
    expect((await t.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie } })).statusCode).toBe(200);
    const out = await t.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie } });
    expect(out.statusCode).toBe(204);
    const after = await t.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie } });
    expect(after.statusCode).toBe(401);
  });
});
