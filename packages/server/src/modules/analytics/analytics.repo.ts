import { sql } from 'kysely';
import type { Executor } from '../../db.js';
import { DAY_MS, ORG_TOTAL, type RollupTable } from './beacon-writes.js';
import {
  BEACON_TYPES,
  zeroCounts,
  type ArmOutcome,
  type Counts,
  type Granularity,
  type ProductUsage,
  type Segment,
  type SegmentUsage,
  type UsageFilter,
} from './analytics.types.js';

const TABLE: Record<Granularity, RollupTable> = { hour: 'usage_hourly', day: 'usage_daily' };

/** Window counts per value of one segment (device or page origin), over the organizations' events. */
export async function segmentCounts(db: Executor, f: UsageFilter, segment: Segment): Promise<SegmentUsage[]> {
  if (!f.orgIds.length) return [];
  let q = db
    .selectFrom('usage_segments_hourly')
    .where('org_id', 'in', f.orgIds)
    .where('segment', '=', segment)
    .where('bucket_start', '>=', f.start)
    .where('bucket_start', '<', f.end);
  if (!f.includeInternal) q = q.where('internal', '=', 0);
  const rows = await q
    .select((eb) => ['value', ...BEACON_TYPES.map((t) => eb.fn.sum<number | string>(t).as(t))])
    .groupBy('value')
    .execute();
  return rows.map((r) => ({ value: r.value, ...toCounts(r as unknown as Record<string, unknown>) }));
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

const toCounts = (r: Record<string, unknown>): Counts => {
  const c = zeroCounts();
  for (const t of BEACON_TYPES) c[t] = Number(r[t] ?? 0);
  return c;
};

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
    .select((eb) => ['bucket_start', ...BEACON_TYPES.map((t) => eb.fn.sum<number | string>(t).as(t))])
    .groupBy('bucket_start')
    .execute();
  return rows.map((r) => ({ bucketStart: r.bucket_start, ...toCounts(r as unknown as Record<string, unknown>) }));
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
      .select((eb) => ['p.id', 'p.title', ...BEACON_TYPES.map((t) => eb.fn.sum<number | string>(`r.${t}`).as(t))])
      // By the primary key alone: the products index then yields the groups in order, with no sort
      // (the title depends on the id, which both databases accept).
      .groupBy('p.id')
      .execute();
    for (const r of rows) {
      const c = toCounts(r as unknown as Record<string, unknown>);
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


/**
 * Per arm of an experiment, counted per viewer: the distinct viewers the element showed the arm to (their exposures,
 * written in the same transaction as the raw events that carried the arm), those of them with a conversion (a raw
 * event from the page or from the shop's server, matched by viewer_id) within `[since, until]`, and their
 * conversions' summed value. A viewer seen in both arms (only a tampered page can do that) counts in
 * neither; internal traffic counts in neither.
 */
export async function experimentOutcomes(db: Executor, orgId: string, experimentId: string, since: string, until: string | null): Promise<ArmOutcome[]> {
  const end = until ?? '9999-12-31T23:59:59.999Z';
  const { rows } = await sql<{ arm: string; viewers: number | string; converters: number | string; value: number | string | null }>`
    with seen as (
      select viewer_id, min(arm) as arm from experiment_exposures
      where experiment_id = ${experimentId} and org_id = ${orgId}
      group by viewer_id
      having count(distinct arm) = 1
    ), converted as (
      select viewer_id, sum(coalesce(value, 0)) as value from beacon_events
      where org_id = ${orgId} and type = 'conversion' and viewer_id is not null and internal = 0
        and occurred_at >= ${since} and occurred_at <= ${end}
      group by viewer_id
    )
    select seen.arm as arm, count(*) as viewers, count(converted.viewer_id) as converters, sum(converted.value) as value
    from seen left join converted on converted.viewer_id = seen.viewer_id
    group by seen.arm`.execute(db);
  return rows.map((r) => ({ arm: r.arm, viewers: Number(r.viewers), converters: Number(r.converters), value: Number(r.value ?? 0) }));
}

/** An experiment's exposures, deleted with the experiment. */
export async function deleteExposures(db: Executor, orgId: string, experimentId: string): Promise<void> {
  await db.deleteFrom('experiment_exposures').where('experiment_id', '=', experimentId).where('org_id', '=', orgId).execute();
}
