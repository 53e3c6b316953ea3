import type { Kysely } from 'kysely';
import type { DB } from '../../db.js';
import { writeBatch, type BatchInsert } from '../../platform/db/batch.js';
import { BEACON_TYPES, type BeaconEvent, type Segment } from './analytics.types.js';
import type { ExposureMemory } from './exposure-memory.js';

/*
 * What a group commit's beacon events write, in one transaction: their raw rows, the hourly and daily rollups, the
 * device and page counts, and the experiment exposures. The reads of usage and results are in analytics.repo.ts.
 */

export type RollupTable = 'usage_hourly' | 'usage_daily';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** The statements of a batch, written once: see writeBatch. */
const BEACON_INSERT: BatchInsert = {
  table: 'beacon_events',
  // What a request's events share first (its organization, receive time, page and, from the element, its viewer
  // and experiment arm): bound once per request on SQLite. Then each event's own cells.
  columns: [
    'org_id',
    'received_at',
    'internal',
    'device',
    'referrer',
    'viewer_id',
    'experiment_id',
    'arm',
    'subject_id',
    'type',
    'occurred_at',
    'duration_ms',
    'clamped',
    'name',
    'value',
    'currency',
  ],
  shared: 8,
  // A view sends 10 of these 16 cells; the other 6 are null.
  sparse: true,
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
const SEGMENT_INSERT: BatchInsert = {
  table: 'usage_segments_hourly',
  columns: ['org_id', 'segment', 'value', 'bucket_start', 'internal', ...BEACON_TYPES],
  onConflict:
    'on conflict ("org_id", "segment", "bucket_start", "value", "internal") do update set ' +
    BEACON_TYPES.map((t) => `"${t}" = "usage_segments_hourly"."${t}" + excluded."${t}"`).join(', '),
};

/** A viewer already counted in an arm stays one row: the key is the whole row. */
const EXPOSURE_INSERT: BatchInsert = {
  table: 'experiment_exposures',
  columns: ['experiment_id', 'org_id', 'viewer_id', 'arm'],
  onConflict: 'on conflict do nothing',
};

const beaconRow = (e: BeaconEvent) => [
  e.orgId,
  e.receivedAt,
  e.internal ? 1 : 0,
  e.device,
  e.referrer,
  e.viewerId,
  e.experimentId,
  e.arm,
  e.subjectId,
  e.type,
  e.occurredAt,
  e.durationMs,
  e.clamped ? 1 : 0,
  e.name,
  e.value,
  e.currency,
];

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

/**
 * Where an event type's count sits in a rollup's counts: an array indexed by type, not an object keyed by it, since
 * a batch of mixed types reads and writes an object's fields through one name after another (measured: a fifth of
 * the rollups' cost for 20 mixed events).
 */
const COUNT_AT = new Map(BEACON_TYPES.map((t, i) => [t, i]));
const zeroTally = () => new Array<number>(BEACON_TYPES.length).fill(0);

/** A rollup row being counted: its key's cells, then a count per event type in BEACON_TYPES order. */
interface Tally {
  sortKey: string;
  key: unknown[];
  counts: number[];
}

/**
 * Counts per rollup key as rows of cells, sorted, so concurrent writers lock rows in the same order (no deadlocks).
 * Each event counts twice: for its subject, and in the organization's total.
 *
 * A run of events with the same organization, time and internal flag (a batch's events mostly share one
 * receive time per request) costs one bucket computation and one lookup per subject: a date parse and a
 * composed key per event were a tenth of a 20-event request.
 */
function rollupRows(events: BeaconEvent[], unit: number): unknown[][] {
  const groups = new Map<string, Map<string, Tally>>();
  let group = new Map<string, Tally>();
  let bucket = '';
  let last: BeaconEvent | undefined;
  // The rows the event before counted in, reused while the next names the same subject in the same group.
  let subjectRow: Tally | null = null;
  let totalRow: Tally | null = null;
  const rowOf = (e: BeaconEvent, subject: string) => {
    let row = group.get(subject);
    if (!row) {
      const internal = e.internal ? 1 : 0;
      row = { sortKey: `${e.orgId}\u0000${subject}\u0000${bucket}\u0000${internal}`, key: [e.orgId, subject, bucket, internal], counts: zeroTally() };
      group.set(subject, row);
    }
    return row;
  };
  for (const e of events) {
    const sameGroup = last && e.orgId === last.orgId && e.occurredAt === last.occurredAt && e.internal === last.internal;
    if (!sameGroup) {
      bucket = floorTo(e.occurredAt, unit);
      const key = `${e.orgId}\u0000${bucket}\u0000${e.internal ? 1 : 0}`;
      const known = groups.get(key);
      if (known) group = known;
      else groups.set(key, (group = new Map()));
    }
    if (!sameGroup || e.subjectId !== last!.subjectId) {
      // A server's conversion may name no product: its subject is the organization's total, counted once.
      totalRow = rowOf(e, ORG_TOTAL);
      subjectRow = e.subjectId === ORG_TOTAL ? null : rowOf(e, e.subjectId);
    }
    last = e;
    const at = COUNT_AT.get(e.type)!;
    totalRow!.counts[at]++;
    if (subjectRow) subjectRow.counts[at]++;
  }
  return sortedCells([...groups.values()].flatMap((g) => [...g.values()]));
}

const sortedCells = (tallies: Tally[]): unknown[][] =>
  tallies.sort((x, y) => (x.sortKey < y.sortKey ? -1 : x.sortKey > y.sortKey ? 1 : 0)).map((t) => [...t.key, ...t.counts]);

/**
 * The raw events and both rollups, in one transaction: usage never disagrees with what was stored. The
 * rollups get one upsert per distinct (organization, subject, bucket, internal) of the batch, not one per event.
 */
export async function writeBeaconEvents(db: Kysely<DB>, events: BeaconEvent[], exposures?: ExposureMemory): Promise<void> {
  const newExposures = exposureRows(events, exposures);
  await writeBatch(db, [
    { insert: BEACON_INSERT, rows: events.map(beaconRow), groups: requestLengths(events) },
    { insert: HOURLY_INSERT, rows: rollupRows(events, HOUR_MS) },
    { insert: DAILY_INSERT, rows: rollupRows(events, DAY_MS) },
    { insert: SEGMENT_INSERT, rows: segmentRows(events) },
    { insert: EXPOSURE_INSERT, rows: [...newExposures.values()] },
  ]);
  exposures?.remember(newExposures.keys());
}

/** The number of events of each request, in order: only a request's own events are written by one statement. */
function requestLengths(events: BeaconEvent[]): number[] {
  const lengths: number[] = [];
  for (let i = 0; i < events.length; i++) {
    if (i > 0 && events[i].request === events[i - 1].request) lengths[lengths.length - 1]++;
    else lengths.push(1);
  }
  return lengths;
}

/**
 * The (experiment, organization, viewer, arm) the batch's events were seen with and `known` does not hold, once
 * each and sorted by key (the same lock order for every writer): a page's events mostly share one viewer and
 * arm, so a request adds one row at most. Internal traffic and events without a viewer are never counted in
 * results, so they are not recorded.
 */
function exposureRows(events: BeaconEvent[], known: ExposureMemory | undefined): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  let last: BeaconEvent | undefined;
  for (const e of events) {
    if (e.experimentId === null || e.arm === null || e.viewerId === null || e.internal) continue;
    if (last && e.experimentId === last.experimentId && e.arm === last.arm && e.viewerId === last.viewerId && e.orgId === last.orgId) continue;
    last = e;
    const id = `${e.experimentId}\u0000${e.orgId}\u0000${e.viewerId}\u0000${e.arm}`;
    if (!rows.has(id) && !known?.has(id)) rows.set(id, [e.experimentId, e.orgId, e.viewerId, e.arm]);
  }
  if (rows.size < 2) return rows;
  return new Map([...rows.entries()].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)));
}

/**
 * Hourly counts per device and per page origin. A request's events share both (they come from one page), so a
 * batch adds about two upserts per request, whatever its number of events; events with neither add none.
 */
function segmentRows(events: BeaconEvent[]): unknown[][] {
  const rows = new Map<string, Tally>();
  // The rows of the event before, reused while the next has the same organization, hour, device, page and flag:
  // a request's events all do, so a key is composed once per request, not twice per event.
  let device: Tally | null = null;
  let referrer: Tally | null = null;
  let last: BeaconEvent | undefined;
  const rowFor = (e: BeaconEvent, bucket: string, segment: Segment, value: string) => {
    const internal = e.internal ? 1 : 0;
    const id = `${e.orgId}\u0000${segment}\u0000${bucket}\u0000${value}\u0000${internal}`;
    let row = rows.get(id);
    if (!row) rows.set(id, (row = { sortKey: id, key: [e.orgId, segment, value, bucket, internal], counts: zeroTally() }));
    return row;
  };
  for (const e of events) {
    if (e.device === null && e.referrer === null) continue;
    if (
      !last ||
      e.occurredAt !== last.occurredAt ||
      e.orgId !== last.orgId ||
      e.device !== last.device ||
      e.referrer !== last.referrer ||
      e.internal !== last.internal
    ) {
      const bucket = floorTo(e.occurredAt, HOUR_MS);
      device = e.device === null ? null : rowFor(e, bucket, 'device', e.device);
      referrer = e.referrer === null ? null : rowFor(e, bucket, 'referrer', e.referrer);
    }
    last = e;
    const at = COUNT_AT.get(e.type)!;
    if (device) device.counts[at]++;
    if (referrer) referrer.counts[at]++;
  }
  return sortedCells([...rows.values()]);
}
