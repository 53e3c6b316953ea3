import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, sessionCookie, type TestApp } from '../../test/app.js';
import { expectEnvelope } from '../../test/checks.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const login = (payload: unknown) => t.app.inject({ method: 'POST', url: '/auth/login', payload: payload as object });
const sessions = async () => Number((await t.deps.database.db.selectFrom('sessions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

describe('sign-in refusals', () => {
  it('a wrong password and an unknown email both give the same 401, and no session or cookie', async () => {
    const m = await t.member(t.org.org_id, 'member');
    const before = await sessions();
    const answers = [];
    for (const payload of [{ email: m.email, password: 'nope' }, { email: 'nobody@example.test', password: 'x' }]) {
      const res = await login(payload);
      const error = expectEnvelope(res, 401, 'unauthenticated');
      expect(res.headers['set-cookie']).toBeUndefined();
      answers.push({ ...error, request_id: undefined });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(await sessions()).toBe(before);
  });

  it('a body without email or password, or not JSON, is refused before any password check', async () => {
    expectEnvelope(await login({ email: 'a@example.test' }), 422, 'validation_failed');
    expectEnvelope(await login({ password: 'x' }), 422, 'validation_failed');
    expectEnvelope(await login({ email: 'a@example.test', password: 'x', remember: true }), 422, 'validation_failed');
    const raw = await t.app.inject({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'application/json' }, payload: '{"email":' });
    expectEnvelope(raw, 400, 'invalid_request');
  });

  it('a forged or ended session cookie is 401 on the API', async () => {
    const forged = await t.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie: 'plinth_session=not-a-session' } });
    expectEnvelope(forged, 401, 'unauthenticated');
    const m = await t.member(t.org.org_id, 'member');
    const cookie = await sessionCookie(t.app, m.email, m.password);
    expect((await t.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie } })).statusCode).toBe(204);
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/projects', headers: { cookie } }), 401, 'unauthenticated');
  });

  it('logout without a session still answers 204 and changes nothing', async () => {
    const before = await sessions();
    const res = await t.app.inject({ method: 'POST', url: '/auth/logout' });
    expect(res.statusCode).toBe(204);
    expect(await sessions()).toBe(before);
  });
});
