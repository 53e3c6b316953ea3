import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, sessionCookie, type TestApp } from '../../test/app.js';

let t: TestApp;
let owner: string;
beforeAll(async () => {
  t = await createTestApp();
  const o = await t.member(t.org.org_id, 'owner');
  owner = await sessionCookie(t.app, o.email, o.password);
});
afterAll(async () => t?.close());

const get = (url: string, cookie: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });

describe('dashboard api', () => {
  it('me lists the user and each organization with its role and balance', async () => {
    const res = await get('/dashboard/api/me', owner);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user.email).toMatch(/^owner/);
    expect(body.organizations).toEqual([{ id: t.org.org_id, name: expect.any(String), role: 'owner', plan: 'active', credit_balance: 1000 }]);
  });

  it('an owner adds a member, changes the role and removes them', async () => {
    const url = `/dashboard/api/organizations/${t.org.org_id}/members`;
    const add = await t.app.inject({ method: 'POST', url, headers: { cookie: owner }, payload: { email: 'New.Person@example.test', role: 'member', password: 'a long password' } });
    expect(add.statusCode).toBe(201);
    const userId = add.json().user_id;
    expect(add.json()).toMatchObject({ email: 'new.person@example.test', role: 'member' });
    // The new person can sign in with the password the owner set.
    await sessionCookie(t.app, 'new.person@example.test', 'a long password');
    const list = await get(url, owner);
    expect(list.json().data.find((m: { user_id: string }) => m.user_id === userId)).toMatchObject({ role: 'member' });
    const patch = await t.app.inject({ method: 'PATCH', url: `${url}/${userId}`, headers: { cookie: owner }, payload: { role: 'admin' } });
    expect(patch.json()).toEqual({ user_id: userId, role: 'admin' });
    expect((await get(url, owner)).json().data.find((m: { user_id: string }) => m.user_id === userId).role).toBe('admin');
    const del = await t.app.inject({ method: 'DELETE', url: `${url}/${userId}`, headers: { cookie: owner } });
    expect(del.statusCode).toBe(204);
    expect((await get(url, owner)).json().data.some((m: { user_id: string }) => m.user_id === userId)).toBe(false);
  });

  it('credits show the balance and the ledger, newest first', async () => {
    const res = await get(`/dashboard/api/organizations/${t.org.org_id}/credits`, owner);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ object: 'credits', balance: 1000, plan: 'active' });
    expect(res.json().ledger.data[0]).toMatchObject({ delta: 1000, balance_after: 1000, reason: 'grant' });
    expect(res.json().ledger.total).toBe(1);
  });
});
