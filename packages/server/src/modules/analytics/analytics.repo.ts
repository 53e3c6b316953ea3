import type { Insertable, Kysely } from 'kysely';
import type { DB, Executor } from '../../db.js';
import { writeBatch, type BatchInsert } from '../../platform/db/batch.js';
import { BEACON_TYPES, type BeaconEvent, type Counts, type Granularity, type ProductUsage, type UsageFilter } from './analytics.types.js';

type RollupRow = Insertable<DB['usage_hourly']>;
type RollupTable = 'usage_hourly' | 'usage_daily';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const TABLE: Record<Granularity, RollupTable> = { hour: 'usage_hourly', day: 'usage_daily' };

/** The statements of a batch, written once: see writeBatch. */
const BEACON_INSERT: BatchInsert = {
  table: 'beacon_events',
  columns: ['org_id', 'subject_id', 'type', 'internal', 'occurred_at', 'received_at', 'viewer_id', 'duration_ms', 'clamped'],
};

const rollupInsert = (table: RollupTable): BatchInsert => ({
  table,
  columns: ['org_id', 'subject_id', 'bucket_start', 'internal', ...BEACON_TYPES],
  onConflict:
    'on conflict ("org_id", "subject_id", "bucket_start", "internal") do update set ' +
    BEACON_TYPES.map((t) => `"${t}" = "${table}"."${t}" + excluded."${t}"`).join(', '),
});

const HOURLY_INSERT = rollupInsert('usage_hourly');
const DAILY_INSERT = rollupInsert('usage_daily');

const beaconRow = (e: BeaconEvent) => [
  e.orgId,
  e.subjectId,
  e.type,
  e.internal ? 1 : 0,
  e.occurredAt,
  e.receivedAt,
  e.viewerId,
  e.durationMs,
  e.clamped ? 1 : 0,
];

const rollupValues = (r: RollupRow) => [r.org_id, r.subject_id, r.bucket_start, r.internal, r.view, r.ar_enter, r.ar_session_ended];

/**
 * The start of the hour or day holding `iso`. Event times come from toISOString (`2026-11-24T16:42:05.123Z`),
 * whose hour and day are prefixes of the text: cut, not parsed and formatted, on the beacon's hot path.
 */
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const floorTo = (iso: string, unit: number) => {
  if (CANONICAL.test(iso)) {
    if (unit === HOUR_MS) return `${iso.slice(0, 13)}:00:00.000Z`;
    if (unit === DAY_MS) return `${iso.slice(0, 10)}T00:00:00.000Z`;
  }
  return new Date(Math.floor(Date.parse(iso) / unit) * unit).toISOString();
};

/** The rollup subject that counts every event of an organization, whatever product_id it names. */
export const ORG_TOTAL = '';

type Counted = RollupRow & Counts;

/**
 * Counts per rollup key, sorted, so concurrent writers lock rows in the same order (no deadlocks).
 * Each event counts twice: for its subject, and in the organization's total.
 *
 * A run of events with the same organization, time and internal flag (a batch's events mostly share one
 * receive time per request) costs one bucket computation and one lookup per subject: a date parse and a
 * composed key per event were a tenth of a 20-event request.
 */
function rollupRows(events: BeaconEvent[], unit: number): RollupRow[] {
  const groups = new Map<string, Map<string, Counted>>();
  let group = new Map<string, Counted>();
  let bucket = '';
  let last: BeaconEvent | undefined;
  for (const e of events) {
    if (!last || e.orgId !== last.orgId || e.occurredAt !== last.occurredAt || e.internal !== last.internal) {
      bucket = floorTo(e.occurredAt, unit);
      const key = `${e.orgId}\u0000${bucket}\u0000${e.internal ? 1 : 0}`;
      const known = groups.get(key);
      if (known) group = known;
      else groups.set(key, (group = new Map()));
    }
    last = e;
    for (const subject of [e.subjectId, ORG_TOTAL]) {
      let row = group.get(subject);
      if (!row) {
        row = { org_id: e.orgId, subject_id: subject, bucket_start: bucket, internal: e.internal ? 1 : 0, view: 0, ar_enter: 0, ar_session_ended: 0 };
        group.set(subject, row);
      }
      row[e.type]++;
    }
  }
  const keyed = [...groups.values()].flatMap((g) =>
    [...g.values()].map((r) => [`${r.org_id}\u0000${r.subject_id}\u0000${r.bucket_start}\u0000${r.internal}`, r] as const),
  );
  return keyed.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)).map(([, r]) => r);
}

/**
 * The raw events and both rollups, in one transaction: usage never disagrees with what was stored. The
 * rollups get one upsert per distinct (organization, subject, bucket, internal) of the batch, not one per event.
 */
export async function writeBeaconEvents(db: Kysely<DB>, events: BeaconEvent[]): Promise<void> {
  await writeBatch(db, [
    { insert: BEACON_INSERT, rows: events.map(beaconRow) },
    { insert: HOURLY_INSERT, rows: rollupRows(events, HOUR_MS).map(rollupValues) },
    { insert: DAILY_INSERT, rows: rollupRows(events, DAY_MS).map(rollupValues) },
  ]);
}

/** The product's organization, when the product is within reach. */
export async function productOrg(db: Executor, productId: string, orgIds: readonly string[]): Promise<string | undefined> {
  if (!orgIds.length) return undefined;
  const row = await db
    .selectFrom('products')
    .select('org_id')
    .where('id', '=', productId)
    .where('org_id', 'in', orgIds)
    .executeTakeFirst();
  return row?.org_id;
}

const toCounts = (r: { view: unknown; ar_enter: unknown; ar_session_ended: unknown }): Counts => ({
  view: Number(r.view),
  ar_enter: Number(r.ar_enter),
  ar_session_ended: Number(r.ar_session_ended),
});

/**
 * Counts per bucket of the window (of one product, or of the organizations' totals); buckets with
 * nothing in them are simply absent.
 */
export async function bucketCounts(db: Executor, f: UsageFilter): Promise<Array<{ bucketStart: string } & Counts>> {
  if (!f.orgIds.length) return [];
  let q = db
    .selectFrom(TABLE[f.granularity] as 'usage_daily')
    .where('org_id', 'in', f.orgIds)
    .where('subject_id', '=', f.subjectId ?? ORG_TOTAL)
    .where('bucket_start', '>=', f.start)
    .where('bucket_start', '<', f.end);
  if (!f.includeInternal) q = q.where('internal', '=', 0);
  const rows = await q
    .select((eb) => [
      'bucket_start',
      eb.fn.sum<number | string>('view').as('view'),
      eb.fn.sum<number | string>('ar_enter').as('ar_enter'),
      eb.fn.sum<number | string>('ar_session_ended').as('ar_session_ended'),
    ])
    .groupBy('bucket_start')
    .execute();
  return rows.map((r) => ({ bucketStart: r.bucket_start, ...toCounts(r) }));
}

/**
 * The window in the coarsest rows that cover it exactly: whole UTC days from the daily rollup, the
 * hours before the first and after the last whole day from the hourly one.
 */
function coveringRanges(start: string, end: string): Array<{ table: RollupTable; start: string; end: string }> {
  const s = Date.parse(start);
  const e = Date.parse(end);
  const firstDay = Math.ceil(s / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(e / DAY_MS) * DAY_MS;
  if (firstDay >= lastDay) return [{ table: 'usage_hourly', start, end }];
  const at = (ms: number) => new Date(ms).toISOString();
  return [
    { table: 'usage_hourly' as const, start, end: at(firstDay) },
    { table: 'usage_daily' as const, start: at(firstDay), end: at(lastDay) },
    { table: 'usage_hourly' as const, start: at(lastDay), end },
  ].filter((r) => r.start < r.end);
}

/**
 * Window counts of every product (with a product row in the organization the events were counted
 * in) that has any: unknown ids and another organization's product ids never match. The loop is
 * driven from the organization's products (CROSS JOIN fixes that order in SQLite), so each product
 * costs one range read of its own rollup rows.
 */
export async function productCounts(db: Executor, f: UsageFilter): Promise<ProductUsage[]> {
  if (!f.orgIds.length) return [];
  const sums = new Map<string, ProductUsage>();
  for (const range of coveringRanges(f.start, f.end)) {
    let q = db
      .selectFrom('products as p')
      .crossJoin(`${range.table} as r` as 'usage_daily as r')
      .whereRef('r.org_id', '=', 'p.org_id')
      .whereRef('r.subject_id', '=', 'p.id')
      .where('p.org_id', 'in', f.orgIds)
      .where('r.bucket_start', '>=', range.start)
      .where('r.bucket_start', '<', range.end);
    if (f.subjectId !== undefined) q = q.where('p.id', '=', f.subjectId);
    if (!f.includeInternal) q = q.where('r.internal', '=', 0);
    const rows = await q
      .select((eb) => [
        'p.id',
        'p.title',
        eb.fn.sum<number | string>('r.view').as('view'),
        eb.fn.sum<number | string>('r.ar_enter').as('ar_enter'),
        eb.fn.sum<number | string>('r.ar_session_ended').as('ar_session_ended'),
      ])
      // By the primary key alone: the products index then yields the groups in order, with no sort
      // (the title depends on the id, which both databases accept).
      .groupBy('p.id')
      .execute();
    for (const r of rows) {
      const c = toCounts(r);
      const seen = sums.get(r.id);
      if (!seen) sums.set(r.id, { productId: r.id, title: r.title, ...c });
      else for (const k of BEACON_TYPES) seen[k] += c[k];
    }
  }
  return [...sums.values()];
}

/**
 * Deletes up to `batch` raw events received before `before`. Their counts already live in the rollups, written
 * in the same transaction as the events, so usage over any window still answers. Returns how many went.
 */
export async function purgeBeaconEvents(db: Executor, before: string, batch: number): Promise<number> {
  const ids = db.selectFrom('beacon_events').select('id').where('received_at', '<', before).limit(batch);
  const result = await db.deleteFrom('beacon_events').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
