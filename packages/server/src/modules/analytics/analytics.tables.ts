import type { Generated } from 'kysely';

/** One row per accepted beacon event, keyed in the order it was stored; `internal` and `clamped` are 0/1. */
export interface BeaconEventsTable {
  /** assigned by the database (a number on SQLite, a bigint's text on PostgreSQL) */
  id: Generated<number | string>;
  org_id: string;
  subject_id: string;
  type: 'view' | 'ar_enter' | 'ar_session_ended';
  internal: number;
  occurred_at: string;
  received_at: string;
  viewer_id: string | null;
  duration_ms: number | null;
  clamped: number;
}

/** Event counts per (org, subject, bucket, internal); subject '' holds the organization's totals. */
export interface UsageRollupTable {
  org_id: string;
  subject_id: string;
  bucket_start: string;
  internal: number;
  view: number;
  ar_enter: number;
  ar_session_ended: number;
}

/** This module's tables, created by `analytics.migration.ts`; `src/db.ts` adds them to the app's `DB`. */
export interface AnalyticsTables {
  beacon_events: BeaconEventsTable;
  usage_hourly: UsageRollupTable;
  usage_daily: UsageRollupTable;
}
