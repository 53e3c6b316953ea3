import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformTables } from '../../platform/db/index.js';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';

let t: TestApp;
let minuteAgo: string;
let now: string;

beforeAll(async () => {
  t = await createTestApp();
  // One heartbeat just now, one a minute ago (a dead worker's).
  minuteAgo = new Date(Date.now() - 60_000).toISOString();
  now = new Date().toISOString();
  const db = platformTables(t.deps.database.db);
  await db
    .insertInto('workers')
    .values([
      { id: 'host-a:101:live', host: 'host-a', pid: 101, started_at: minuteAgo, heartbeat_at: now, jobs: JSON.stringify([{ queue: 'q', id: 'job_1', started: now }]) },
      { id: 'host-b:202:dead', host: 'host-b', pid: 202, started_at: minuteAgo, heartbeat_at: minuteAgo, jobs: '[]' },
    ])
    .execute();
});
afterAll(async () => t?.close());

const health = (headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: '/v1/health', headers });

describe('GET /v1/health workers', () => {
  it('lists live workers (id, host, started, last heartbeat, jobs held) to a secret key, leaving dead ones out', async () => {
    const res = await health(bearer(t.org.secret_key));
    expect(res.statusCode).toBe(200);
    expect(res.json().workers).toEqual([{ id: 'host-a:101:live', host: 'host-a', started_at: minuteAgo, last_heartbeat_at: now, jobs_held: 1 }]);
  });

  it('lists them to a dashboard session', async () => {
    const member = await t.member(t.org.org_id, 'member');
    const res = await health({ cookie: await sessionCookie(t.app, member.email, member.password) });
    expect(res.json().workers).toHaveLength(1);
  });

  it('does not show them to a publishable key, a bad key or no key, who still get the health answer', async () => {
    for (const headers of [bearer(t.org.publishable_key), { ...bearer(t.org.publishable_key), origin: 'https://shop.example' }, bearer('sk_not_a_real_key'), {}]) {
      const res = await health(headers);
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toMatch(/^(ok|degraded)$/);
      expect(res.json()).not.toHaveProperty('workers');
    }
  });
});
