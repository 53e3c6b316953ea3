import type { Deps } from '../../deps.js';
import { notFound, validationFailed } from '../../core/errors.js';
import { readOrgs } from '../../core/reach.js';
import type { Principal } from '../../core/principal.js';
import { bucketCounts, deleteExposures, experimentOutcomes, productCounts, productOrg, segmentCounts } from './analytics.repo.js';
import type { Executor } from '../../db.js';
import {
  BEACON_TYPES,
  DEVICES,
  zeroCounts,
  type BeaconType,
  type Counts,
  type Granularity,
  type ProductUsage,
  type SegmentUsage,
  type UsageFilter,
  type UsageReport,
} from './analytics.types.js';

export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_WINDOW_DAYS = 366;
export const MAX_HOURLY_WINDOW_DAYS = 31;
export const BY_PRODUCT_LIMIT = 20;

const UNIT_MS: Record<Granularity, number> = { hour: 3_600_000, day: 86_400_000 };
const DAY_MS = UNIT_MS.day;

export interface UsageQuery {
  start?: string;
  end?: string;
  granularity?: Granularity;
  event_type?: BeaconType[];
  org_id?: string;
  scope?: 'all';
  product_id?: string;
  include_internal?: boolean;
  group_by?: 'product' | 'device' | 'referrer';
}

/**
 * The window as asked, then widened to whole buckets: counts are kept per hour, so a window that
 * starts mid-bucket could not be counted exactly. The answer's start/end say what was counted.
 */
export function usageWindow(q: Pick<UsageQuery, 'start' | 'end' | 'granularity'>, now: Date) {
  const granularity = q.granularity ?? 'day';
  const unit = UNIT_MS[granularity];
  const floor = (ms: number) => Math.floor(ms / unit) * unit;
  const ceil = (ms: number) => Math.ceil(ms / unit) * unit;

  const askedEnd = q.end !== undefined ? Date.parse(q.end) : undefined;
  const askedStart = q.start !== undefined ? Date.parse(q.start) : undefined;
  // With no start, "the last 30 days" means whole buckets ending with the current one.
  const end = askedEnd ?? (askedStart === undefined ? ceil(now.getTime()) : now.getTime());
  const start = askedStart ?? end - DEFAULT_WINDOW_DAYS * DAY_MS;

  const errors: { path: string; message: string }[] = [];
  // The schema checks the format; a few valid-looking times (a leap second) still parse to nothing.
  if (Number.isNaN(start)) errors.push({ path: 'query.start', message: 'is not a time this server can read' });
  if (Number.isNaN(end)) errors.push({ path: 'query.end', message: 'is not a time this server can read' });
  if (errors.length) throw validationFailed(errors);
  if (end <= start) errors.push({ path: 'query.end', message: 'must be after start' });
  else if (end - start > MAX_WINDOW_DAYS * DAY_MS) {
    errors.push({ path: 'query.start', message: `the window may span at most ${MAX_WINDOW_DAYS} days` });
  } else if (granularity === 'hour' && end - start > MAX_HOURLY_WINDOW_DAYS * DAY_MS) {
    errors.push({ path: 'query.granularity', message: `hour granularity covers at most ${MAX_HOURLY_WINDOW_DAYS} days; use day` });
  }
  if (errors.length) throw validationFailed(errors);
  return { granularity, unit, startMs: floor(start), endMs: ceil(end) };
}

async function orgsFor(deps: Deps, principal: Principal, q: UsageQuery): Promise<string[]> {
  if (q.product_id === undefined) return readOrgs(principal, q);
  // A product names its own organization, so product_id needs no org_id; an org_id or scope, when
  // given, still bounds where the product is looked for.
  const reach = q.org_id !== undefined ? readOrgs(principal, q) : principal.orgIds;
  const orgId = await productOrg(deps.database.db, q.product_id, reach);
  if (!orgId) throw notFound('product');
  return [orgId];
}

/** By views, then AR entries, then id: a stable order, computed here so both databases agree on it. */
function rank(products: ProductUsage[]): ProductUsage[] {
  return products
    .filter((p) => BEACON_TYPES.some((t) => p[t] > 0))
    .sort((a, b) => b.view - a.view || b.ar_enter - a.ar_enter || (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0))
    .slice(0, BY_PRODUCT_LIMIT);
}

/** Like products: by views, then AR entries, then the value itself. */
function rankSegments(rows: SegmentUsage[], limit: number): SegmentUsage[] {
  return rows
    .filter((r) => BEACON_TYPES.some((t) => r[t] > 0))
    .sort((a, b) => b.view - a.view || b.ar_enter - a.ar_enter || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, limit);
}

export async function usageReport(deps: Deps, principal: Principal, q: UsageQuery): Promise<UsageReport> {
  const window = usageWindow(q, deps.clock.now());
  const filter: UsageFilter = {
    orgIds: await orgsFor(deps, principal, q),
    start: new Date(window.startMs).toISOString(),
    end: new Date(window.endMs).toISOString(),
    granularity: window.granularity,
    includeInternal: q.include_internal === true,
    subjectId: q.product_id,
  };
  const db = deps.database.db;
  const [counts, products, segments] = await Promise.all([
    bucketCounts(db, filter),
    q.group_by === 'product' ? productCounts(db, filter) : undefined,
    q.group_by === 'device' || q.group_by === 'referrer' ? segmentCounts(db, filter, q.group_by) : undefined,
  ]);
  // event_type leaves the other types at zero, in buckets, totals and the ranking alike.
  const types = new Set<BeaconType>(q.event_type?.length ? q.event_type : BEACON_TYPES);
  const only = <T extends Counts>(c: T): T => {
    for (const t of BEACON_TYPES) if (!types.has(t)) c[t] = 0;
    return c;
  };

  // Every bucket of the window is listed, the empty ones too, so charts need no gap-filling.
  const buckets = new Map<string, { start: string } & Counts>();
  for (let t = window.startMs; t < window.endMs; t += window.unit) {
    const start = new Date(t).toISOString();
    buckets.set(start, { start, ...zeroCounts() });
  }
  const totals = zeroCounts();
  for (const row of counts) {
    const bucket = buckets.get(row.bucketStart);
    // Rollup keys are written by the same toISOString() as above, so every row finds its bucket.
    if (!bucket) continue;
    for (const t of types) {
      bucket[t] += row[t];
      totals[t] += row[t];
    }
  }
  return {
    start: filter.start,
    end: filter.end,
    granularity: filter.granularity,
    buckets: [...buckets.values()],
    totals,
    ...(products && { byProduct: rank(products.map(only)) }),
    ...(segments && q.group_by === 'device' && { byDevice: rankSegments(segments.map(only), DEVICES.length) }),
    ...(segments && q.group_by === 'referrer' && { byReferrer: rankSegments(segments.map(only), BY_PRODUCT_LIMIT) }),
  };
}

/** Each arm's viewers and conversions of an experiment between its start and its end (or now): for experiments. */
export const armOutcomes = (db: Executor, orgId: string, experimentId: string, since: string, until: string | null) =>
  experimentOutcomes(db, orgId, experimentId, since, until);

/** Forgets who saw which arm of an experiment: when the experiment is deleted. */
export const forgetExposures = (db: Executor, orgId: string, experimentId: string) => deleteExposures(db, orgId, experimentId);
