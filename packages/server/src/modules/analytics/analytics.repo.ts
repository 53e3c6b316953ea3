import { sql, type Insertable, type Kysely } from 'kysely';
import type { DB, Executor } from '../../platform/db/index.js';
import type { BeaconEvent, BeaconType, Granularity, ProductUsage, UsageFilter } from './analytics.types.js';

type BeaconRow = Insertable<DB['beacon_events']>;
type RollupRow = Insertable<DB['usage_hourly']>;
type RollupTable = 'usage_hourly' | 'usage_daily';

/** Rows per INSERT: far below SQLite's 32,766 and PostgreSQL's 65,535 bound parameters. */
const CHUNK = 500;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const TABLE: Record<Granularity, RollupTable> = { hour: 'usage_hourly', day: 'usage_daily' };

export function toBeaconRow(e: BeaconEvent): BeaconRow {
  return {
    id: e.id,
    org_id: e.orgId,
    subject_id: e.subjectId,
    type: e.type,
    internal: e.internal ? 1 : 0,
    occurred_at: e.occurredAt,
    received_at: e.receivedAt,
    viewer_id: e.viewerId,
    duration_ms: e.durationMs,
    clamped: e.clamped ? 1 : 0,
  };
}

const floorTo = (iso: string, unit: number) => new Date(Math.floor(Date.parse(iso) / unit) * unit).toISOString();

/** Counts per rollup key, sorted, so concurrent writers lock rows in the same order (no deadlocks). */
function rollupRows(events: BeaconEvent[], unit: number): RollupRow[] {
  const counts = new Map<string, RollupRow>();
  for (const e of events) {
    const bucket = floorTo(e.occurredAt, unit);
    const internal = e.internal ? 1 : 0;
    const key = `${e.orgId}\u0000${bucket}\u0000${e.subjectId}\u0000${e.type}\u0000${internal}`;
    const row = counts.get(key);
    if (row) row.count++;
    else counts.set(key, { org_id: e.orgId, bucket_start: bucket, subject_id: e.subjectId, type: e.type, internal, count: 1 });
  }
  return [...counts.keys()].sort().map((k) => counts.get(k)!);
}

async function upsertRollups(trx: Executor, table: RollupTable, rows: RollupRow[]) {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto(table)
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc
          .columns(['org_id', 'bucket_start', 'subject_id', 'type', 'internal'])
          .doUpdateSet({ count: (eb) => eb(eb.ref(`${table}.count`), '+', eb.ref('excluded.count')) }),
      )
      .execute();
  }
}

/** The raw events and both rollups, in one transaction: usage never disagrees with what was stored. */
export async function writeBeaconEvents(db: Kysely<DB>, events: BeaconEvent[]): Promise<void> {
  const rows = events.map(toBeaconRow);
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += CHUNK) {
      await trx.insertInto('beacon_events').values(rows.slice(i, i + CHUNK)).execute();
    }
    await upsertRollups(trx, 'usage_hourly', rollupRows(events, HOUR_MS));
    await upsertRollups(trx, 'usage_daily', rollupRows(events, DAY_MS));
  });
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

function rollupsIn(db: Executor, f: UsageFilter) {
  const table = TABLE[f.granularity] as 'usage_hourly';
  let q = db
    .selectFrom(table)
    .where('org_id', 'in', f.orgIds)
    .where('bucket_start', '>=', f.start)
    .where('bucket_start', '<', f.end);
  if (f.subjectId !== undefined) q = q.where('subject_id', '=', f.subjectId);
  if (f.types.length < 3) q = q.where('type', 'in', f.types);
  if (!f.includeInternal) q = q.where('internal', '=', 0);
  return q;
}

/** Counts per (bucket, type); buckets with nothing in them are simply absent. */
export async function bucketCounts(db: Executor, f: UsageFilter): Promise<Array<{ bucketStart: string; type: BeaconType; count: number }>> {
  if (!f.orgIds.length) return [];
  const rows = await rollupsIn(db, f)
    .select(['bucket_start', 'type', (eb) => eb.fn.sum<number | string>('count').as('count')])
    .groupBy(['bucket_start', 'type'])
    .execute();
  return rows.map((r) => ({ bucketStart: r.bucket_start, type: r.type, count: Number(r.count) }));
}

const sumOf = (type: BeaconType) =>
  sql<number | string>`sum(case when ${sql.ref('type')} = ${type} then ${sql.ref('count')} else 0 end)`;

/**
 * The best products of the window, ranked by views, then AR entries, then id for a stable order.
 * The join keeps only subjects that are products of the organization the events were counted in:
 * unknown ids and another organization's product ids never appear.
 */
export async function topProducts(db: Executor, f: UsageFilter, limit: number): Promise<ProductUsage[]> {
  if (!f.orgIds.length) return [];
  const perSubject = rollupsIn(db, f)
    .select([
      'org_id',
      'subject_id',
      sumOf('view').as('view'),
      sumOf('ar_enter').as('ar_enter'),
      sumOf('ar_session_ended').as('ar_session_ended'),
    ])
    .groupBy(['org_id', 'subject_id']);
  const rows = await db
    .selectFrom(perSubject.as('r'))
    .innerJoin('products as p', (j) => j.onRef('p.id', '=', 'r.subject_id').onRef('p.org_id', '=', 'r.org_id'))
    .select(['r.subject_id', 'p.title', 'r.view', 'r.ar_enter', 'r.ar_session_ended'])
    .orderBy('r.view', 'desc')
    .orderBy('r.ar_enter', 'desc')
    .orderBy('r.subject_id', 'asc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    productId: r.subject_id,
    title: r.title,
    view: Number(r.view),
    ar_enter: Number(r.ar_enter),
    ar_session_ended: Number(r.ar_session_ended),
  }));
}
