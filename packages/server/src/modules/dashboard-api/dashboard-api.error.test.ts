import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, sessionCookie, type TestApp } from '../../test/app.js';

let t: TestApp;
let owner: { cookie: string; userId: string };
beforeAll(async () => {
  t = await createTestApp();
  const o = await t.member(t.org.org_id, 'owner');
  owner = { cookie: await sessionCookie(t.app, o.email, o.password), userId: o.userId };
});
afterAll(async () => t?.close());

describe('dashboard api refusals', () => {
  it('an organization keeps its last owner', async () => {
    // The bootstrap owner and the test owner: demote one, then the last one cannot go.
    const url = `/dashboard/api/organizations/${t.org.org_id}/members`;
    const demote = await t.app.inject({ method: 'PATCH', url: `${url}/${t.org.user_id}`, headers: { cookie: owner.cookie }, payload: { role: 'admin' } });
    expect(demote.statusCode).toBe(200);
    const self = await t.app.inject({ method: 'DELETE', url: `${url}/${owner.userId}`, headers: { cookie: owner.cookie } });
    expect(self.statusCode).toBe(409);
    expect(self.json().error.details.reason).toBe('last_owner');
  });

  it('adding an existing member is a conflict; a bad body is 422; an unknown member is 404', async () => {
    const url = `/dashboard/api/organizations/${t.org.org_id}/members`;
    const { email } = (await t.app.inject({ method: 'GET', url, headers: { cookie: owner.cookie } })).json().data[0];
    const again = await t.app.inject({ method: 'POST', url, headers: { cookie: owner.cookie }, payload: { email, role: 'member' } });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.details.reason).toBe('member_exists');
    const bad = await t.app.inject({ method: 'POST', url, headers: { cookie: owner.cookie }, payload: { email: 'not-an-email', role: 'boss' } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.code).toBe('validation_failed');
    const gone = await t.app.inject({ method: 'PATCH', url: `${url}/usr_nobody`, headers: { cookie: owner.cookie }, payload: { role: 'member' } });
    expect(gone.statusCode).toBe(404);
  });
});
