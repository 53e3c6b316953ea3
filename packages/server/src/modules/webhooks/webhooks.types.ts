import { EVENT_TYPES } from '../events/index.js';


/** Subscribing to this receives every type, including types added later. */
export const ALL_EVENTS = '*';
/** Sent by POST /v1/webhooks/{id}/test to that endpoint only; no subscription covers it. */
export const TEST_EVENT_TYPE = 'webhook.test';
export const SUBSCRIBABLE_EVENTS = [ALL_EVENTS, ...EVENT_TYPES] as const;

/**
 * Seconds to wait after failed attempt n (1-based) before attempt n + 1; after the last entry the
 * delivery is failed. 1 attempt + 7 retries span about 28 hours, × PLINTH_WEBHOOK_RETRY_SCALE.
 */
export const RETRY_SCHEDULE_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;

/** Standard Webhooks recommends about 15 s; a receiver should answer first and work afterwards. */
export const DEFAULT_TIMEOUT_MS = 15_000;

/** After a rotation the old secret keeps signing (next to the new one) this long. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 3600 * 1000;

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

/**
 * Why a delivery ended failed: the retries ran out, the endpoint answered 410 (it is then disabled),
 * the endpoint was disabled while the delivery waited, or the event row could not be read.
 */
export type FailureReason = 'attempts_exhausted' | 'endpoint_gone' | 'endpoint_disabled' | 'event_missing';

export interface EndpointRecord {
  id: string;
  orgId: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AttemptRecord {
  number: number;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  responseStatus: number | null;
  error: { code: string; message: string } | null;
  nextAttemptAt: string | null;
}

export interface DeliveryRecord {
  id: string;
  endpointId: string;
  orgId: string;
  eventId: string;
  eventSeq: number;
  eventType: string;
  orderingKey: string;
  status: DeliveryStatus;
  failureReason: FailureReason | null;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastResponseStatus: number | null;
  jobToken: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What one attempt produced, before it is written to the log. */
export interface AttemptOutcome {
  responseStatus: number | null;
  durationMs: number;
  error: { code: string; message: string } | null;
}

/** The worker's knobs; defaults suit production, tests shorten them. */
export interface WebhookWorkerOptions {
  /** per-attempt deadline (default 15 s) */
  timeoutMs?: number;
  /** how often the dispatcher looks for new events when idle (default 1 s) */
  dispatchIntervalMs?: number;
  /** how long a missing event seq is waited for before it is taken as rolled back (default 10 min) */
  gapGraceMs?: number;
  /** for tests: the jitter source */
  random?: () => number;
}
