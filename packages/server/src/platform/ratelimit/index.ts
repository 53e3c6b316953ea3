import type { Config } from '../../config.js';
import { MemoryRateLimiter } from './memory-limiter.js';
import { RedisRateLimiter, type RedisRateLimiterOptions } from './redis-limiter.js';
import type { RateLimiter } from './types.js';

export type { RateDecision, RateLimiter, RateRule } from './types.js';
export { MemoryRateLimiter, type MemoryRateLimiterOptions } from './memory-limiter.js';
export { RedisRateLimiter, type RedisRateLimiterOptions } from './redis-limiter.js';

/** Redis when REDIS_URL is set (shared by all API processes), otherwise buckets in this process. */
export function createRateLimiter(config: Readonly<Config>, options: RedisRateLimiterOptions = {}): RateLimiter {
  return config.redisUrl ? new RedisRateLimiter(config.redisUrl, options) : new MemoryRateLimiter();
}
