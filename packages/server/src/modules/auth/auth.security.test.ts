import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { createTestApp, type TestApp } from '../../test/app.js';

let t: TestApp;
beforeAll(async () => {
  // Sign-in limits follow PLINTH_RATE_LIMITS like every other bucket; these tests need them on.
  // A small burst and a refill too slow to matter within the test: each refused attempt is plain arithmetic.
  t = await createTestApp({ PLINTH_RATE_LIMITS: 'on', PLINTH_RATE_LIMIT_LOGIN_BURST: '2', PLINTH_RATE_LIMIT_LOGIN_PER_SECOND: '0.001' });
});
afterAll(async () => t?.close());

// Buckets may live in a shared Redis across runs: each run takes its own addresses.
const net = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
const ip = (n: number) => `${net}.${n}`;
const login = (email: string, password: string, from = ip(9)) =>
  t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password }, remoteAddress: from });

describe('sign-in is throttled', () => {
  it('per email: after the burst even the right password from a new address gets 429 rate_limited', async () => {
    const m = await t.member(t.org.org_id, 'member');
    for (let i = 0; i < 2; i++) expect((await login(m.email, 'wrong', ip(100 + i))).statusCode).toBe(401);
    const res = await login(m.email, m.password, ip(99));
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe('rate_limited');
    expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('per client address: many emails from one address are cut off too', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) codes.push((await login(`nobody${i}@example.test`, 'x', ip(77))).statusCode);
    // The address's bucket holds three times an account's burst.
    expect(codes).toEqual([401, 401, 401, 401, 401, 401, 429]);
    // Another address is not affected.
    const m = await t.member(t.org.org_id, 'admin');
    expect((await login(m.email, m.password, ip(78))).statusCode).toBe(200);
  });
});

describe('password hashes', () => {
  it('new hashes use scrypt N=2^17', async () => {
    const m = await t.member(t.org.org_id, 'member');
    const row = await t.deps.database.db.selectFrom('users').select('password_hash').where('id', '=', m.userId).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$131072\$/);
  });

  it('an older, cheaper hash is replaced at the next successful sign-in', async () => {
    const m = await t.member(t.org.org_id, 'member');
    const salt = randomBytes(16);
    const old = `scrypt$16384$${salt.toString('base64url')}$${scryptSync(m.password, salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64url')}`;
    await t.deps.database.db.updateTable('users').set({ password_hash: old }).where('id', '=', m.userId).execute();
    expect((await login(m.email, 'wrong', ip(50))).statusCode).toBe(401);
    const kept = await t.deps.database.db.selectFrom('users').select('password_hash').where('id', '=', m.userId).executeTakeFirstOrThrow();
    expect(kept.password_hash).toBe(old);
    expect((await login(m.email, m.password, ip(51))).statusCode).toBe(200);
    const row = await t.deps.database.db.selectFrom('users').select('password_hash').where('id', '=', m.userId).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$131072\$/);
  });
});

describe('safe defaults', () => {
  it('listens on 127.0.0.1 unless HOST says otherwise', () => {
    const dir = t.config.dataDir;
    expect(loadConfig({ PLINTH_DATA_DIR: dir, PLINTH_SECRET: 'test-secret-0123456789abcdef' }).host).toBe('127.0.0.1');
    expect(loadConfig({ PLINTH_DATA_DIR: dir, PLINTH_SECRET: 'test-secret-0123456789abcdef', HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });
});
