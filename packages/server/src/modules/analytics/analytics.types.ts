export const BEACON_TYPES = ['view', 'ar_enter', 'ar_session_ended'] as const;
export type BeaconType = (typeof BEACON_TYPES)[number];

/** One accepted event, as the service hands it to the repository. */
export interface BeaconEvent {
  orgId: string;
  /** the product_id the client sent; it may name no product row (a v1 scan, a deleted product) */
  subjectId: string;
  type: BeaconType;
  /** sent with a secret key or a session: the organization's own traffic */
  internal: boolean;
  occurredAt: string;
  receivedAt: string;
  viewerId: string | null;
  durationMs: number | null;
  /** occurred_at was too old or in the future and was replaced by the receive time */
  clamped: boolean;
}

export type Granularity = 'hour' | 'day';

export type Counts = Record<BeaconType, number>;

/** What the rollups are asked: half-open window [start, end) of bucket starts. */
export interface UsageFilter {
  orgIds: string[];
  start: string;
  end: string;
  granularity: Granularity;
  includeInternal: boolean;
  /** one product's report */
  subjectId?: string;
}

export interface ProductUsage extends Counts {
  productId: string;
  title: string | null;
}

export interface UsageReport {
  start: string;
  end: string;
  granularity: Granularity;
  buckets: Array<{ start: string } & Counts>;
  totals: Counts;
  byProduct?: ProductUsage[];
}

export const zeroCounts = (): Counts => ({ view: 0, ar_enter: 0, ar_session_ended: 0 });
