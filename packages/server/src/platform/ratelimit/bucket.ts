import type { RateDecision, RateRule } from './types.js';

/**
 * Token-bucket arithmetic shared by both stores so they answer identically.
 * Refill sums like 0.1 + 0.2 leave float dust; EPSILON keeps "exactly one token" counting as one.
 */
export const EPSILON = 1e-9;

export function checkTake(bucket: string, rule: RateRule, cost: number): void {
  if (typeof bucket !== 'string' || bucket === '') throw new RangeError('rate limit bucket must be a non-empty string');
  if (!(Number.isFinite(rule.perSecond) && rule.perSecond > 0)) throw new RangeError(`perSecond must be > 0, got ${rule.perSecond}`);
  if (!(Number.isFinite(rule.burst) && rule.burst > 0)) throw new RangeError(`burst must be > 0, got ${rule.burst}`);
  if (!(Number.isFinite(cost) && cost >= 0)) throw new RangeError(`cost must be >= 0, got ${cost}`);
  // Such a take could never succeed; refusing it forever with a retry-after would be a lie.
  if (cost > rule.burst) throw new RangeError(`cost ${cost} exceeds the bucket size ${rule.burst}`);
}

/** `tokens` is the level after the take (unchanged when refused). */
export function decide(rule: RateRule, cost: number, tokens: number, allowed: boolean): RateDecision {
  return {
    allowed,
    limit: rule.burst,
    remaining: Math.max(0, Math.floor(tokens + EPSILON)),
    resetSeconds: Math.max(0, Math.ceil((rule.burst - tokens) / rule.perSecond - EPSILON)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((cost - tokens) / rule.perSecond - EPSILON)),
  };
}
