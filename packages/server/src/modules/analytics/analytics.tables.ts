import type { BeaconType } from './analytics.types.js';
import type { Generated } from 'kysely';

/** One row per accepted beacon event, keyed in the order it was stored; `internal` and `clamped` are 0/1. */
export interface BeaconEventsTable {
  /** assigned by the database (a number on SQLite, a bigint's text on PostgreSQL) */
  id: Generated<number | string>;
  org_id: string;
  subject_id: string;
  type: BeaconType;
  internal: number;
  occurred_at: string;
  received_at: string;
  viewer_id: string | null;
  duration_ms: number | null;
  clamped: number;
  /** added by 0013: conversions' name, value and currency; the experiment and arm an event was seen in; device and page origin */
  name: string | null;
  value: number | null;
  currency: string | null;
  experiment_id: string | null;
  arm: string | null;
  device: string | null;
  referrer: string | null;
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
  interaction: Generated<number>;
  variant_change: Generated<number>;
  hotspot_open: Generated<number>;
  ar_cta_tap: Generated<number>;
  conversion: Generated<number>;
}

/** Event counts per (org, segment kind, segment value, hour, internal): what group_by=device and group_by=referrer read. */
export interface UsageSegmentsTable extends Omit<UsageRollupTable, 'subject_id'> {
  /** `device` or `referrer` */
  segment: string;
  value: string;
}

/** One row per viewer and arm an experiment's events were seen with (never internal traffic): what results count. */
export interface ExperimentExposuresTable {
  experiment_id: string;
  org_id: string;
  viewer_id: string;
  arm: string;
}

/** This module's tables, created by `analytics.migration.ts`; `src/db.ts` adds them to the app's `DB`. */
export interface AnalyticsTables {
  beacon_events: BeaconEventsTable;
  usage_hourly: UsageRollupTable;
  usage_daily: UsageRollupTable;
  usage_segments_hourly: UsageSegmentsTable;
  experiment_exposures: ExperimentExposuresTable;
}
