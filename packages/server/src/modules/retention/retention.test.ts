import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { runRetention } from './retention.service.js';

let t: TestApp;
const DAY_MS = 24 * 3600 * 1000;

beforeAll(async () => {
  t = await createTestApp({ PLINTH_BEACON_RETENTION_DAYS: '90', PLINTH_WEBHOOK_RETENTION_DAYS: '30' });
}, 60_000);
afterAll(async () => t?.close());

const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

describe('retention', { timeout: 30_000 }, () => {
  it('deletes raw beacons past the window in batches, and usage over the old window still answers from rollups', async () => {
    const productId = 'prod_retention';
    const oldDay = new Date(Date.now() - 120 * DAY_MS);
    oldDay.setUTCHours(0, 0, 0, 0);
    // Beacons four months old, sent through the API so raw rows and rollups are written together.
    const events = Array.from({ length: 7 }, () => ({ type: 'view', product_id: productId, occurred_at: oldDay.toISOString() }));
    const res = await t.app.inject({ method: 'POST', url: '/v1/beacon', headers: bearer(t.org.secret_key), payload: { events } });
    expect(res.statusCode).toBeLessThan(300);
    // The API stamps received_at now; age them as if they had arrived then.
    await t.deps.database.db.updateTable('beacon_events').set({ received_at: oldDay.toISOString() }).where('subject_id', '=', productId).execute();
    const recent = iso(1000);
    await t.deps.database.db
      .insertInto('beacon_events')
      .values({ org_id: t.org.org_id, subject_id: productId, type: 'view', internal: 1, occurred_at: recent, received_at: recent, clamped: 0 })
      .execute();

    // Events that claim a time far in the past are counted when they arrived (clamped), so the rollups hold them
    // in today's buckets; what matters is that the same window answers the same after the raw rows are gone.
    const today = new Date();
    today.setUTCHours(0, 0, 0, 0);
    const usage = () =>
      t.app.inject({
        method: 'GET',
        url: `/v1/usage?start=${new Date(today.getTime() - DAY_MS).toISOString()}&end=${new Date(today.getTime() + DAY_MS).toISOString()}&granularity=day&include_internal=true`,
        headers: bearer(t.org.secret_key),
      });
    const before = await usage();
    expect(before.statusCode, before.body).toBe(200);

    const result = await runRetention(t.deps, 3); // a batch smaller than the rows: several rounds
    expect(result.beaconEvents).toBe(7);
    const left = await t.deps.database.db.selectFrom('beacon_events').select('received_at').where('subject_id', '=', productId).execute();
    expect(left.map((r) => r.received_at)).toEqual([recent]);

    const after = await usage();
    expect(after.statusCode).toBe(200);
    expect(after.json().totals).toEqual(before.json().totals);
    expect(after.json().totals.view).toBeGreaterThanOrEqual(7);
  });

  it('deletes finished webhook deliveries past their window with their attempts, never pending ones', async () => {
    const hook = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: bearer(t.org.secret_key), payload: { url: 'https://93.184.216.34/hook' } });
    expect(hook.statusCode).toBe(201);
    const endpointId = hook.json().id as string;
    const row = (id: string, status: 'pending' | 'succeeded' | 'failed', updatedAt: string) => ({
      id,
      endpoint_id: endpointId,
      org_id: t.org.org_id,
      event_id: `evt_${id}`,
      event_seq: 1,
      event_type: 'product.updated',
      ordering_key: `k:${id}`,
      status,
      attempt_count: 1,
      created_at: updatedAt,
      updated_at: updatedAt,
    });
    const old = iso(40 * DAY_MS);
    await t.deps.database.db
      .insertInto('webhook_deliveries')
      .values([row('whd_old_ok', 'succeeded', old), row('whd_old_failed', 'failed', old), row('whd_old_pending', 'pending', old), row('whd_new_ok', 'succeeded', iso(1000))])
      .execute();
    await t.deps.database.db.insertInto('webhook_attempts').values({ delivery_id: 'whd_old_ok', number: 1, started_at: old }).execute();

    const result = await runRetention(t.deps);
    expect(result.webhookDeliveries).toBe(2);
    const ids = (await t.deps.database.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpointId).orderBy('id').execute()).map((r) => r.id);
    expect(ids).toEqual(['whd_new_ok', 'whd_old_pending']);
    const attempts = await t.deps.database.db.selectFrom('webhook_attempts').select('delivery_id').where('delivery_id', '=', 'whd_old_ok').execute();
    expect(attempts).toHaveLength(0);
  });
});
