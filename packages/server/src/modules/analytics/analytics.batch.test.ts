import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';
import { writeBeaconEvents } from './beacon-writes.js';
import { ExposureMemory } from './exposure-memory.js';
import type { BeaconEvent } from './analytics.types.js';

/**
 * A batch writes its rollups as one upsert per distinct key: the same 20 events must count exactly the
 * same whether they arrive as one request, as 20 requests one after another, or as 20 concurrent requests
 * (which group commit merges into shared transactions). Each way goes to an organization of its own,
 * with products at the same positions, and every rollup row and usage answer is compared.
 */
const NOW = Date.parse('2032-06-10T00:20:00.000Z');
const HOUR = 3_600_000;
const TYPES = ['view', 'ar_enter', 'ar_session_ended'] as const;

interface Org {
  org: string;
  sk: string;
  products: string[];
}

let t: TestApp;
const orgs: Org[] = [];

/** Event i of the 20, with `products` standing for the organization's own product ids. */
function events(products: string[]) {
  return Array.from({ length: 20 }, (_, i) => ({
    type: TYPES[(i * 7) % 3],
    product_id: i % 5 === 4 ? `scan_${i % 2}` : products[(i * 3) % products.length],
    // the current hour, the previous one (yesterday, across midnight), two hours and a day back,
    // some left to the receive time and one too old to believe (counted now, clamped)
    ...(i % 6 === 5 ? {} : { occurred_at: new Date(NOW - [0, HOUR, 2 * HOUR, 23 * HOUR, 30 * HOUR][i % 5] + i * 1000).toISOString() }),
    viewer_id: `viewer_${i % 4}`,
    ...(TYPES[(i * 7) % 3] === 'ar_session_ended' && { duration_ms: 1000 * i }),
  }));
}

async function send(o: Org, batch: object[]) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/beacon', headers: bearer(o.sk), payload: { events: batch } });
  expect(res.statusCode, res.body).toBe(202);
  return res.json() as { accepted: number; clamped: number };
}

beforeAll(async () => {
  t = await createTestApp({}, { clock: { now: () => new Date(NOW) } });
  for (let k = 0; k < 3; k++) {
    const b = await t.bootstrap();
    const products: string[] = [];
    for (let i = 0; i < 4; i++) products.push(await seedProduct(t, b.org_id, { title: `Lamp ${i}` }));
    orgs.push({ org: b.org_id, sk: b.secret_key, products });
  }
  const [one, sequential, concurrent] = orgs;
  const receipt = await send(one, events(one.products));
  expect(receipt).toMatchObject({ accepted: 20, clamped: 4 });
  const singles = events(sequential.products);
  let clamped = 0;
  for (const e of singles) clamped += (await send(sequential, [e])).clamped;
  expect(clamped).toBe(4);
  const receipts = await Promise.all(events(concurrent.products).map((e) => send(concurrent, [e])));
  expect(receipts.reduce((n, r) => n + r.clamped, 0)).toBe(4);
});

afterAll(async () => {
  await t?.close();
});

/** An organization's rollup rows, with its product ids replaced by their position so organizations compare. */
async function rollups(o: Org, table: 'usage_hourly' | 'usage_daily') {
  const rows = await t.deps.database.db
    .selectFrom(table)
    .select(['subject_id', 'bucket_start', 'internal', 'view', 'ar_enter', 'ar_session_ended'])
    .where('org_id', '=', o.org)
    .execute();
  return rows
    .map((r) => ({
      ...r,
      subject_id: o.products.includes(r.subject_id) ? `product ${o.products.indexOf(r.subject_id)}` : r.subject_id,
      view: Number(r.view),
      ar_enter: Number(r.ar_enter),
      ar_session_ended: Number(r.ar_session_ended),
    }))
    .sort((a, b) => `${a.subject_id} ${a.bucket_start}`.localeCompare(`${b.subject_id} ${b.bucket_start}`));
}

async function usage(o: Org, query: string) {
  const res = await t.app.inject({ method: 'GET', url: `/v1/usage?include_internal=true&${query}`, headers: bearer(o.sk) });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json() as { by_product?: Array<{ product_id: string }> };
  for (const p of body.by_product ?? []) p.product_id = `product ${o.products.indexOf(p.product_id)}`;
  body.by_product?.sort((a, b) => a.product_id.localeCompare(b.product_id));
  return body;
}

describe('a batch of 20 events counts as 20 single-event requests', () => {
  it('stores every event, once', async () => {
    for (const o of orgs) {
      const { n } = await t.deps.database.db
        .selectFrom('beacon_events')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('org_id', '=', o.org)
        .executeTakeFirstOrThrow();
      expect(Number(n)).toBe(20);
    }
  });

  it('writes the same hourly and daily rollup rows', async () => {
    for (const table of ['usage_hourly', 'usage_daily'] as const) {
      const [one, sequential, concurrent] = await Promise.all(orgs.map((o) => rollups(o, table)));
      expect(one.length).toBeGreaterThan(4);
      expect(sequential).toEqual(one);
      expect(concurrent).toEqual(one);
    }
    // the organization's total row of the current hour holds the 4 clamped events and those sent for now
    const hourly = await rollups(orgs[0], 'usage_hourly');
    const totals = hourly.filter((r) => r.subject_id === '').reduce((n, r) => n + r.view + r.ar_enter + r.ar_session_ended, 0);
    expect(totals).toBe(20);
  });

  it('answers the same usage, by hour, by day and by product', async () => {
    const window = `start=${new Date(NOW - 2 * 24 * HOUR).toISOString()}&end=${new Date(NOW + HOUR).toISOString()}`;
    for (const query of [`${window}&granularity=hour`, `${window}&granularity=day`, `${window}&granularity=day&group_by=product`]) {
      const [one, sequential, concurrent] = await Promise.all(orgs.map((o) => usage(o, query)));
      expect(sequential).toEqual(one);
      expect(concurrent).toEqual(one);
    }
    const byProduct = await usage(orgs[0], `${window}&group_by=product`);
    expect(byProduct.by_product?.length).toBe(4);
  });
});

describe('exposures a viewer already has', () => {
  const exposure = (orgId: string, arm: '3d' | 'poster', viewer = 'viewer_x'): BeaconEvent => ({
    orgId,
    subjectId: 'prod_x',
    type: 'view',
    internal: false,
    occurredAt: new Date(NOW).toISOString(),
    receivedAt: new Date(NOW).toISOString(),
    viewerId: viewer,
    durationMs: null,
    name: null,
    value: null,
    currency: null,
    experimentId: 'expt_x',
    arm,
    device: null,
    referrer: null,
    clamped: false,
  });
  const rows = (orgId: string) =>
    t.deps.database.db.selectFrom('experiment_exposures').select(['viewer_id', 'arm']).where('org_id', '=', orgId).orderBy('arm').execute();

  it('are not written again once committed, and only committed ones are remembered', async () => {
    const { org } = orgs[0];
    const memory = new ExposureMemory();
    await writeBeaconEvents(t.deps.database.db, [exposure(org, '3d'), exposure(org, '3d')], memory);
    expect(await rows(org)).toEqual([{ viewer_id: 'viewer_x', arm: '3d' }]);
    // Taken out behind the memory's back: a batch that wrote the exposure again would bring it back.
    await t.deps.database.db.deleteFrom('experiment_exposures').where('org_id', '=', org).execute();
    await writeBeaconEvents(t.deps.database.db, [exposure(org, '3d'), exposure(org, 'poster')], memory);
    expect(await rows(org)).toEqual([{ viewer_id: 'viewer_x', arm: 'poster' }]);
    // A transaction that fails (an organization that does not exist) leaves nothing remembered.
    await expect(writeBeaconEvents(t.deps.database.db, [exposure('org_missing', '3d', 'viewer_y')], memory)).rejects.toThrow();
    expect(memory.has(`expt_x\u0000org_missing\u0000viewer_y\u00003d`)).toBe(false);
  });

  it('are forgotten all at once when the memory is full, never wrongly remembered', () => {
    const memory = new ExposureMemory(2);
    memory.remember(['a', 'b']);
    memory.remember(['c']);
    expect([memory.has('a'), memory.has('b'), memory.has('c')]).toEqual([false, false, true]);
  });
});
