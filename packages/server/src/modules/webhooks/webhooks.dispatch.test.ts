import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { TEST_BACKEND } from '../../test/env.js';
import { notify } from '../../platform/db/index.js';
import { OUTBOX_CHANNEL } from '../events/events.js';
import { advanceScan, dispatchIfPending, dispatchPending, orderingKey, startDispatcher } from './dispatch.service.js';

/**
 * The dispatcher without a worker: events are written with chosen seq values to play out what
 * PostgreSQL can do (a higher seq committed before a lower one), then the scan is run by hand.
 */
let t: TestApp;
let hookId: string;
let nextSeq: number;

beforeAll(async () => {
  t = await createTestApp();
  const res = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: bearer(t.org.secret_key), payload: { url: 'https://93.184.216.34/hook' } });
  hookId = res.json().id;
  const max = await t.deps.database.db.selectFrom('events').select((eb) => eb.fn.max('seq').as('m')).executeTakeFirst();
  nextSeq = Number(max?.m ?? 0) + 1000;
}, 60_000);
afterAll(async () => t?.close());

async function insertEvent(seq: number, productId: string) {
  const id = `evt_test${seq}`;
  await t.deps.database.db
    .insertInto('events')
    .values({ seq, id, org_id: t.org.org_id, type: 'product.updated', data: JSON.stringify({ object: { id: productId } }), created_at: new Date().toISOString() })
    .execute();
  return id;
}

const deliveries = () =>
  t.deps.database.db.selectFrom('webhook_deliveries').select(['event_id', 'job_token', 'status']).where('endpoint_id', '=', hookId).orderBy('event_seq').execute();
const state = () => t.deps.database.db.selectFrom('webhook_dispatch').selectAll().executeTakeFirstOrThrow();

describe('dispatch: the outbox scan', { timeout: 30_000 }, () => {
  it('a seq that commits after a higher one is still dispatched, once', async () => {
    // Move the scan past everything written so far, so the test's seqs are the only new ones.
    await dispatchPending(t.deps);
    const s = nextSeq;
    nextSeq += 10;
    const e1 = await insertEvent(s, 'prod_a');
    const e3 = await insertEvent(s + 2, 'prod_a');
    await t.deps.database.db.updateTable('webhook_dispatch').set({ scanned_seq: s - 1 }).execute();
    expect(await dispatchPending(t.deps)).toBe(2);
    expect(JSON.parse((await state()).gaps).map((g: { seq: number }) => g.seq)).toEqual([s + 1]);

    const e2 = await insertEvent(s + 1, 'prod_a');
    expect(await dispatchPending(t.deps)).toBe(1);
    expect(JSON.parse((await state()).gaps)).toEqual([]);
    expect(Number((await state()).scanned_seq)).toBe(s + 2);
    expect(await dispatchPending(t.deps)).toBe(0);

    const rows = await deliveries();
    expect(rows.map((r) => r.event_id)).toEqual([e1, e2, e3]);
    // One product, one queue: only the oldest has a job; the others wait to be released in seq order.
    expect(rows.map((r) => r.job_token !== null)).toEqual([true, false, false]);
    expect(rows.every((r) => r.status === 'pending')).toBe(true);
  });

  it('a gap older than the grace period is given up (its transaction was rolled back)', async () => {
    const s = nextSeq;
    nextSeq += 10;
    await insertEvent(s + 1, 'prod_b');
    await t.deps.database.db.updateTable('webhook_dispatch').set({ scanned_seq: s - 1 }).execute();
    expect(await dispatchPending(t.deps)).toBe(1);
    expect(JSON.parse((await state()).gaps).map((g: { seq: number }) => g.seq)).toEqual([s]);
    await dispatchPending(t.deps, 0);
    expect(JSON.parse((await state()).gaps)).toEqual([]);
  });
});

describe('dispatch: quiet when idle', { timeout: 30_000 }, () => {
  it('an idle dispatcher writes nothing; a committed event wakes it and becomes a delivery', async () => {
    await t.deps.database.db.updateTable('webhook_dispatch').set({ gaps: '[]' }).execute();
    await dispatchPending(t.deps);
    const before = await state();
    expect(await dispatchIfPending(t.deps)).toBe(false);
    expect(await dispatchIfPending(t.deps)).toBe(false);
    const after = await state();
    expect(after.updated_at).toBe(before.updated_at); // not even the lock's touch
    const jobs = await t.deps.database.db.selectFrom('jobs').select('id').where('queue', '=', 'webhooks.dispatch').execute().catch(() => []);
    expect(jobs).toHaveLength(0);

    const stop = startDispatcher(t.deps, { intervalMs: 60_000, gapGraceMs: 60_000 });
    try {
      const s = nextSeq;
      nextSeq += 10;
      await t.deps.database.db.updateTable('webhook_dispatch').set({ scanned_seq: s - 1, gaps: '[]' }).execute();
      await insertEvent(s, 'prod_idle');
      await notify(t.deps.database.db, OUTBOX_CHANNEL);
      // SQLite has no NOTIFY: one explicit scan stands in for the poll; PostgreSQL's listener must wake on its own.
      if (TEST_BACKEND === 'sqlite') await dispatchIfPending(t.deps);
      const deadline = Date.now() + 10_000;
      while (Number((await state()).scanned_seq) < s && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(Number((await state()).scanned_seq)).toBeGreaterThanOrEqual(s);
    } finally {
      await stop();
    }
  });
});

describe('dispatch: pure parts', { timeout: 30_000 }, () => {
  it('advanceScan records holes, forgets found and expired ones, ignores huge holes', () => {
    const now = Date.parse('2030-01-01T00:00:00.000Z');
    const a = advanceScan({ scannedSeq: 10, gaps: [] }, [11, 13, 16], [], now, 60_000);
    expect(a.scannedSeq).toBe(16);
    expect(a.gaps.map((g) => g.seq)).toEqual([12, 14, 15]);
    const b = advanceScan({ scannedSeq: 16, gaps: a.gaps }, [], [14], now + 1000, 60_000);
    expect(b.gaps.map((g) => g.seq)).toEqual([12, 15]);
    expect(b.scannedSeq).toBe(16);
    const c = advanceScan({ scannedSeq: 16, gaps: b.gaps }, [], [], now + 61_000, 60_000);
    expect(c.gaps).toEqual([]);
    const d = advanceScan({ scannedSeq: 16, gaps: [] }, [5000], [], now, 60_000);
    expect(d).toEqual({ scannedSeq: 5000, gaps: [] });
  });

  it('orderingKey groups events by their object', () => {
    expect(orderingKey({ id: 'evt_1', type: 'product.model.ready', data: '{"object":{"id":"prod_1"}}' })).toBe('product:prod_1');
    expect(orderingKey({ id: 'evt_2', type: 'export.ready', data: '{"object":{"id":"exp_1"}}' })).toBe('export:exp_1');
    expect(orderingKey({ id: 'evt_3', type: 'product.updated', data: 'not json' })).toBe('event:evt_3');
  });
});
