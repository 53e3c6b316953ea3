export interface RateRule {
  /** tokens refilled per second */
  perSecond: number;
  /** bucket capacity */
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** seconds until the bucket is full again */
  resetSeconds: number;
  /** seconds to wait before one token is available (0 when allowed) */
  retryAfterSeconds: number;
}

/** Token buckets; memory store for one process, Redis store shared across processes. */
export interface RateLimiter {
  readonly kind: 'memory' | 'redis';
  take(bucket: string, rule: RateRule, cost?: number): Promise<RateDecision>;
  /** A limiter whose buckets are in this process decides at once; a shared one (Redis) has no such method. */
  takeNow?(bucket: string, rule: RateRule, cost?: number): RateDecision;
  /** Returns tokens a takeNow spent (present wherever takeNow is). */
  giveBack?(bucket: string, rule: RateRule, cost?: number): void;
  close(): Promise<void>;
}
