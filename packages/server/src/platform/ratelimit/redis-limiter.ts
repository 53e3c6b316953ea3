import { Redis } from 'ioredis';
import { checkTake, decide, EPSILON } from './bucket.js';
import type { RateDecision, RateLimiter, RateRule } from './types.js';

/**
 * One atomic step of a token bucket. Time comes from the Redis server so every API process
 * measures refill on the same clock. The hash is deleted once full and otherwise expires when it
 * would have refilled, so idle buckets cost no memory; a missing key means a full bucket.
 * Numbers are formatted with %.17g because Lua's tostring keeps only 14 digits, too few for
 * epoch seconds with microseconds.
 *
 * KEYS[1] bucket hash; ARGV perSecond, burst, cost, epsilon. Returns { allowed 0|1, tokens after }.
 */
const TAKE_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local epsilon = tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local saved = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(saved[1])
local at = tonumber(saved[2])
if tokens == nil or at == nil then
  tokens = burst
else
  tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
end
local allowed = 0
if tokens + epsilon >= cost then
  allowed = 1
  tokens = math.max(0, tokens - cost)
end
local msToFull = math.ceil((burst - tokens) / rate * 1000)
if msToFull <= 0 then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%.17g', now))
  redis.call('PEXPIRE', KEYS[1], msToFull + 1000)
end
return { allowed, string.format('%.17g', tokens) }
`;

type ScriptedRedis = Redis & {
  plinthTakeTokens(key: string, perSecond: number, burst: number, cost: number, epsilon: number): Promise<[number, string]>;
};

export interface RedisRateLimiterOptions {
  /** prepended to every bucket name; tests use a unique one per run */
  keyPrefix?: string;
  /** connection errors; take() also rejects while Redis is unreachable */
  onError?: (err: Error) => void;
}

/** Token buckets shared by every process that points at the same Redis. */
export class RedisRateLimiter implements RateLimiter {
  readonly kind = 'redis' as const;
  readonly keyPrefix: string;
  private readonly redis: ScriptedRedis;

  constructor(url: string, opts: RedisRateLimiterOptions = {}) {
    this.keyPrefix = opts.keyPrefix ?? 'plinth:ratelimit:';
    // Few retries: a request should fail fast rather than hang while Redis is down.
    const redis = new Redis(url, { maxRetriesPerRequest: 2 });
    // Without a listener ioredis prints every reconnect failure; the failures still reach take().
    redis.on('error', opts.onError ?? (() => {}));
    // defineCommand sends EVALSHA and falls back to EVAL after a script-cache flush.
    redis.defineCommand('plinthTakeTokens', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.redis = redis as ScriptedRedis;
  }

  async take(bucket: string, rule: RateRule, cost = 1): Promise<RateDecision> {
    checkTake(bucket, rule, cost);
    const [allowed, tokens] = await this.redis.plinthTakeTokens(this.keyPrefix + bucket, rule.perSecond, rule.burst, cost, EPSILON);
    return decide(rule, cost, Number(tokens), allowed === 1);
  }

  async close(): Promise<void> {
    if (this.redis.status === 'end') return;
    // quit() waits for pending replies; if the connection is already broken, just drop it.
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
