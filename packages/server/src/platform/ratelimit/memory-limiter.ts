import { performance } from 'node:perf_hooks';
import { checkTake, decide, EPSILON } from './bucket.js';
import type { RateDecision, RateLimiter, RateRule } from './types.js';

interface BucketState {
  tokens: number;
  /** ms on this limiter's clock when `tokens` was measured */
  at: number;
  /** ms when the bucket will be full again, i.e. indistinguishable from a missing entry */
  fullAt: number;
}

export interface MemoryRateLimiterOptions {
  /** monotonic milliseconds; injectable for tests */
  now?: () => number;
  /** entries kept before idle (full) and then least recently used buckets are dropped */
  maxBuckets?: number;
}

/** Per-process token buckets. A full bucket is never stored, since a missing entry means "full". */
export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory' as const;
  private readonly buckets = new Map<string, BucketState>();
  private readonly now: () => number;
  private readonly maxBuckets: number;

  constructor(opts: MemoryRateLimiterOptions = {}) {
    this.now = opts.now ?? (() => performance.now());
    this.maxBuckets = Math.max(1, opts.maxBuckets ?? 100_000);
  }

  get size(): number {
    return this.buckets.size;
  }

  async take(bucket: string, rule: RateRule, cost = 1): Promise<RateDecision> {
    return this.takeNow(bucket, rule, cost);
  }

  /** The same decision, synchronously: a per-process bucket needs no round trip. */
  takeNow(bucket: string, rule: RateRule, cost = 1): RateDecision {
    checkTake(bucket, rule, cost);
    const now = this.now();
    const prev = this.buckets.get(bucket);
    let tokens = prev ? Math.min(rule.burst, prev.tokens + (Math.max(0, now - prev.at) / 1000) * rule.perSecond) : rule.burst;
    const allowed = tokens + EPSILON >= cost;
    if (allowed) tokens = Math.max(0, tokens - cost);

    // Re-inserting keeps Map order = least recently used first, which evict() relies on.
    this.buckets.delete(bucket);
    if (tokens < rule.burst) {
      this.buckets.set(bucket, { tokens, at: now, fullAt: now + ((rule.burst - tokens) / rule.perSecond) * 1000 });
      if (this.buckets.size > this.maxBuckets) this.evict(now);
    }
    return decide(rule, cost, tokens, allowed);
  }

  /**
   * Returns what a take spent, for work that a second decision will account for after all (a front-door lane
   * hands a request back to the router, which takes again): one request, one token.
   */
  giveBack(bucket: string, rule: RateRule, cost = 1): void {
    checkTake(bucket, rule, cost);
    const prev = this.buckets.get(bucket);
    if (!prev) return; // full already
    const now = this.now();
    const tokens = Math.min(rule.burst, prev.tokens + (Math.max(0, now - prev.at) / 1000) * rule.perSecond + cost);
    this.buckets.delete(bucket);
    if (tokens < rule.burst) this.buckets.set(bucket, { tokens, at: now, fullAt: now + ((rule.burst - tokens) / rule.perSecond) * 1000 });
  }

  /**
   * Drops buckets that have refilled (no information lost), then, if still crowded, the least
   * recently used ones (they get a fresh burst: the price of bounded memory). Always shrinking to
   * 90% means the O(n) sweep runs at most once per n/10 inserts.
   */
  private evict(now: number): void {
    for (const [key, state] of this.buckets) if (state.fullAt <= now) this.buckets.delete(key);
    const target = Math.floor(this.maxBuckets * 0.9);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= target) break;
      this.buckets.delete(key);
    }
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
