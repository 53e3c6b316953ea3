export const BEACON_TYPES = [
  'view',
  'ar_enter',
  'ar_session_ended',
  'interaction',
  'variant_change',
  'hotspot_open',
  'ar_cta_tap',
  'conversion',
] as const;
export type BeaconType = (typeof BEACON_TYPES)[number];

export const CONVERSION_NAMES = ['add_to_cart', 'purchase', 'lead'] as const;
export type ConversionName = (typeof CONVERSION_NAMES)[number];

export const ARMS = ['3d', 'poster'] as const;
export type Arm = (typeof ARMS)[number];

export const DEVICES = ['desktop', 'mobile', 'tablet'] as const;
export type Device = (typeof DEVICES)[number];

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
  /** conversions only: what was converted, its value and ISO 4217 currency */
  name: ConversionName | null;
  value: number | null;
  currency: string | null;
  experimentId: string | null;
  arm: Arm | null;
  /** from the request's User-Agent; null when it sent none (a server) */
  device: Device | null;
  /** the page's origin (the request's Origin); null for servers */
  referrer: string | null;
  /** occurred_at was too old or in the future and was replaced by the receive time */
  clamped: boolean;
  /** the request that brought it, numbered by the intake: a request's raw rows may be written by one statement */
  request?: number;
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
  byDevice?: SegmentUsage[];
  byReferrer?: SegmentUsage[];
}

export const zeroCounts = (): Counts => ({
  view: 0,
  ar_enter: 0,
  ar_session_ended: 0,
  interaction: 0,
  variant_change: 0,
  hotspot_open: 0,
  ar_cta_tap: 0,
  conversion: 0,
});

export type Segment = 'device' | 'referrer';

export interface SegmentUsage extends Counts {
  value: string;
}

export interface ArmOutcome {
  arm: string;
  viewers: number;
  converters: number;
  value: number;
}
