import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';
import type { Principal } from '../../core/principal.js';
import { BeaconIntake, eventTime } from './beacon.service.js';

// A fixed clock, mid-hour, so receive times (and clamped events) land in a known bucket.
const NOW = Date.parse('2031-03-14T10:30:00.000Z');
const iso = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();
const HOUR = 3_600_000;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { clock: { now: () => new Date(NOW) } });
});
afterAll(async () => t?.close());

const fromShop = (key: string) => ({ ...bearer(key), origin: 'https://shop.example' });
const beacon = (headers: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'POST', url: '/v1/beacon', headers, payload });
const rawEvents = (orgId: string) =>
  t.deps.database.db.selectFrom('beacon_events').selectAll().where('org_id', '=', orgId).orderBy('id').execute();

describe('POST /v1/beacon', () => {
  it('a publishable key from an allowed origin: 202 beacon_receipt, stored as external traffic', async () => {
    const org = await t.bootstrap();
    const res = await beacon(fromShop(org.publishable_key), {
      events: [
        { type: 'view', product_id: 'prod_a', viewer_id: 'v1' },
        { type: 'ar_enter', product_id: 'prod_a', occurred_at: iso(-2 * HOUR) },
        { type: 'ar_session_ended', product_id: 'prod_a', duration_ms: 42_000 },
      ],
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ object: 'beacon_receipt', accepted: 3, clamped: 0 });
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');

    const rows = await rawEvents(org.org_id);
    expect(rows).toHaveLength(3);
    // Keys the database assigned, in the order the events were stored.
    const ids = rows.map((r) => Number(r.id));
    expect(ids.every((id, i) => Number.isSafeInteger(id) && (i === 0 || id > ids[i - 1]))).toBe(true);
    for (const r of rows) {
      expect(r).toMatchObject({ org_id: org.org_id, subject_id: 'prod_a', internal: 0, clamped: 0, received_at: iso(0) });
    }
    expect(rows.map((r) => [r.type, r.occurred_at, r.viewer_id, r.duration_ms])).toEqual([
      ['view', iso(0), 'v1', null],
      ['ar_enter', iso(-2 * HOUR), null, null],
      ['ar_session_ended', iso(0), null, 42_000],
    ]);
  });

  it('a wildcard allowed domain works too', async () => {
    const org = await t.bootstrap();
    const res = await beacon({ ...bearer(org.publishable_key), origin: 'https://eu.brand.example' }, { events: [{ type: 'view', product_id: 'p' }] });
    expect(res.statusCode).toBe(202);
  });

  it('secret keys and sessions send internal traffic', async () => {
    const email = `internal-${Date.now()}@example.test`;
    const org = await t.bootstrap({ email });
    expect((await beacon(bearer(org.secret_key), { events: [{ type: 'view', product_id: 'p1' }] })).statusCode).toBe(202);
    const cookie = await sessionCookie(t.app, email, 'correct horse battery');
    const res = await beacon({ cookie }, { events: [{ type: 'ar_enter', product_id: 'p1' }] });
    expect(res.statusCode, res.body).toBe(202);
    const rows = await rawEvents(org.org_id);
    expect(rows.map((r) => [r.type, r.internal])).toEqual([
      ['view', 1],
      ['ar_enter', 1],
    ]);
  });

  it('clamps occurred_at more than 24 h old or over 5 min ahead to the receive time, and says how many', async () => {
    const org = await t.bootstrap();
    const res = await beacon(fromShop(org.publishable_key), {
      events: [
        { type: 'view', product_id: 'old', occurred_at: iso(-25 * HOUR) },
        { type: 'view', product_id: 'ahead', occurred_at: iso(10 * 60_000) },
        { type: 'view', product_id: 'recent', occurred_at: iso(-23 * HOUR) },
        { type: 'view', product_id: 'skewed', occurred_at: iso(4 * 60_000) },
        { type: 'view', product_id: 'offset', occurred_at: '2031-03-14T12:00:00+02:00' },
      ],
    });
    expect(res.json()).toEqual({ object: 'beacon_receipt', accepted: 5, clamped: 2 });
    const rows = await rawEvents(org.org_id);
    const by = Object.fromEntries(rows.map((r) => [r.subject_id, [r.occurred_at, r.clamped]]));
    expect(by).toEqual({
      old: [iso(0), 1],
      ahead: [iso(0), 1],
      recent: [iso(-23 * HOUR), 0],
      skewed: [iso(4 * 60_000), 0],
      offset: ['2031-03-14T10:00:00.000Z', 0],
    });
  });

  it('a caller with several organizations names one with org_id (body or query)', async () => {
    const email = `multi-${Date.now()}@example.test`;
    const first = await t.bootstrap({ email });
    const second = await t.bootstrap({ email });
    // Each bootstrap's secret key reaches only its own org; the user's session reaches both.
    const cookie = await sessionCookie(t.app, email, 'correct horse battery');
    expect((await beacon({ cookie }, { events: [{ type: 'view', product_id: 'x' }], org_id: second.org_id })).statusCode).toBe(202);
    const viaQuery = await t.app.inject({
      method: 'POST',
      url: `/v1/beacon?org_id=${first.org_id}`,
      headers: { cookie },
      payload: { events: [{ type: 'ar_enter', product_id: 'x' }] },
    });
    expect(viaQuery.statusCode).toBe(202);
    expect((await rawEvents(second.org_id)).map((r) => r.type)).toEqual(['view']);
    expect((await rawEvents(first.org_id)).map((r) => r.type)).toEqual(['ar_enter']);
  });

  it('raw events and both rollups are written together', async () => {
    const org = await t.bootstrap();
    await beacon(fromShop(org.publishable_key), {
      events: [
        { type: 'view', product_id: 'p', occurred_at: iso(-HOUR) },
        { type: 'view', product_id: 'p', occurred_at: iso(-HOUR + 1000) },
        { type: 'view', product_id: 'p' },
      ],
    });
    const db = t.deps.database.db;
    const rollup = (table: 'usage_hourly' | 'usage_daily') =>
      db
        .selectFrom(table)
        .select(['subject_id', 'bucket_start', 'view', 'ar_enter'])
        .where('org_id', '=', org.org_id)
        .orderBy('subject_id')
        .orderBy('bucket_start')
        .execute();
    // Subject '' is the organization's total, which buckets and totals read.
    expect(await rollup('usage_hourly')).toEqual([
      { subject_id: '', bucket_start: '2031-03-14T09:00:00.000Z', view: 2, ar_enter: 0 },
      { subject_id: '', bucket_start: '2031-03-14T10:00:00.000Z', view: 1, ar_enter: 0 },
      { subject_id: 'p', bucket_start: '2031-03-14T09:00:00.000Z', view: 2, ar_enter: 0 },
      { subject_id: 'p', bucket_start: '2031-03-14T10:00:00.000Z', view: 1, ar_enter: 0 },
    ]);
    expect(await rollup('usage_daily')).toEqual([
      { subject_id: '', bucket_start: '2031-03-14T00:00:00.000Z', view: 3, ar_enter: 0 },
      { subject_id: 'p', bucket_start: '2031-03-14T00:00:00.000Z', view: 3, ar_enter: 0 },
    ]);
  });
});

describe('eventTime: where clamping starts', () => {
  it('exactly 24 h old and exactly 5 min ahead are believed; a millisecond more is not', () => {
    expect(eventTime(iso(-24 * HOUR), NOW)).toEqual({ at: iso(-24 * HOUR), clamped: false });
    expect(eventTime(iso(-24 * HOUR - 1), NOW)).toEqual({ at: iso(0), clamped: true });
    expect(eventTime(iso(5 * 60_000), NOW)).toEqual({ at: iso(5 * 60_000), clamped: false });
    expect(eventTime(iso(5 * 60_000 + 1), NOW)).toEqual({ at: iso(0), clamped: true });
    expect(eventTime(undefined, NOW)).toEqual({ at: iso(0), clamped: false });
  });
});

describe('group commit against the real database', () => {
  it('concurrent beacons share one transaction and every one of them is stored', async () => {
    const org = await t.bootstrap();
    const intake = new BeaconIntake(t.deps);
    const principal = { kind: 'publishable_key', orgIds: [org.org_id] } as Principal;
    const receipts = await Promise.all(
      Array.from({ length: 30 }, (_, i) => intake.record(principal, { events: [{ type: 'view', product_id: `p${i % 3}` }] })),
    );
    expect(receipts.every((r) => r.accepted === 1)).toBe(true);
    expect(intake.stats).toEqual({ batches: 1, items: 30 });
    expect(await rawEvents(org.org_id)).toHaveLength(30);
    const counts = await t.deps.database.db.selectFrom('usage_hourly').select(['subject_id', 'view']).where('org_id', '=', org.org_id).orderBy('subject_id').execute();
    expect(counts).toEqual([
      { subject_id: '', view: 30 },
      { subject_id: 'p0', view: 10 },
      { subject_id: 'p1', view: 10 },
      { subject_id: 'p2', view: 10 },
    ]);
    await intake.close();
  });

  it('a batch over 500 events is split into transactions at request boundaries', async () => {
    const org = await t.bootstrap();
    const intake = new BeaconIntake(t.deps, { windowMs: 20, maxItems: 500 });
    const principal = { kind: 'secret_key', orgIds: [org.org_id] } as Principal;
    const events = Array.from({ length: 100 }, () => ({ type: 'view' as const, product_id: 'p' }));
    await Promise.all(Array.from({ length: 12 }, () => intake.record(principal, { events })));
    expect(intake.stats).toEqual({ batches: 3, items: 1200 });
    const [{ n }] = await t.deps.database.db
      .selectFrom('usage_daily')
      .select((eb) => eb.fn.sum<number>('view').as('n'))
      .where('org_id', '=', org.org_id)
      .where('subject_id', '=', 'p')
      .execute();
    expect(Number(n)).toBe(1200);
    await intake.close();
  });
});
