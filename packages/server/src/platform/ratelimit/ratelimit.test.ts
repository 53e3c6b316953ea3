import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { TEST_REDIS_URL, tempDir } from '../../test/env.js';
import { createRateLimiter, MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './index.js';

// Unique per run so parallel runs (sqlite and postgres projects, CI jobs) never share buckets.
const RUN_PREFIX = `plinth:test:ratelimit:${randomBytes(6).toString('hex')}:`;
const frozen = { perSecond: 0.0001, burst: 50 }; // refills too slowly to matter within a test
let seq = 0;
const fresh = (name: string) => `${name}-${++seq}`;

const dir = tempDir('plinth-ratelimit-');
const configWith = (extra: Record<string, string> = {}) =>
  loadConfig({ PLINTH_DATA_DIR: dir.path, PLINTH_SECRET: 'test-secret-0123456789abcdef', ...extra });
afterAll(() => dir.remove());

/** Behaviour both stores must share; `make` returns a limiter the suite closes itself. */
function sharedBehaviour(make: () => RateLimiter) {
  const limiters: RateLimiter[] = [];
  const limiter = () => {
    const l = make();
    limiters.push(l);
    return l;
  };
  afterAll(async () => {
    await Promise.all(limiters.map((l) => l.close()));
  });

  it('allows the burst, then refuses with a retry-after', async () => {
    const l = limiter();
    const key = fresh('burst');
    const rule = { perSecond: 0.001, burst: 5 };
    for (let i = 4; i >= 0; i--) {
      expect(await l.take(key, rule)).toEqual({ allowed: true, limit: 5, remaining: i, resetSeconds: expect.any(Number), retryAfterSeconds: 0 });
    }
    const refused = await l.take(key, rule);
    expect(refused).toMatchObject({ allowed: false, limit: 5, remaining: 0, retryAfterSeconds: 1000 });
    expect(refused.resetSeconds).toBeGreaterThanOrEqual(4999);
    expect(refused.resetSeconds).toBeLessThanOrEqual(5000);
  });

  it('reports remaining and reset for a fresh bucket', async () => {
    const d = await limiter().take(fresh('fresh'), { perSecond: 0.5, burst: 10 });
    expect(d).toEqual({ allowed: true, limit: 10, remaining: 9, resetSeconds: 2, retryAfterSeconds: 0 });
  });

  it('refills with elapsed time', async () => {
    const l = limiter();
    const key = fresh('refill');
    const rule = { perSecond: 20, burst: 4 };
    for (let i = 0; i < 4; i++) expect((await l.take(key, rule)).allowed).toBe(true);
    const refused = await l.take(key, rule);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1, resetSeconds: 1 });
    await sleep(300); // 6 tokens' worth, capped at the burst of 4
    for (let i = 0; i < 4; i++) expect((await l.take(key, rule)).allowed).toBe(true);
    expect((await l.take(key, rule)).allowed).toBe(false);
  });

  it('consumes nothing when it refuses, and charges the given cost', async () => {
    const l = limiter();
    const key = fresh('cost');
    const rule = { perSecond: 0.001, burst: 10 };
    expect(await l.take(key, rule, 7)).toMatchObject({ allowed: true, remaining: 3 });
    expect(await l.take(key, rule, 5)).toMatchObject({ allowed: false, remaining: 3, retryAfterSeconds: 2000 });
    expect(await l.take(key, rule, 3)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await l.take(key, rule, 0)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('keeps buckets independent per key', async () => {
    const l = limiter();
    const [a, b] = [fresh('a'), fresh('b')];
    const rule = { perSecond: 0.001, burst: 2 };
    await l.take(a, rule);
    await l.take(a, rule);
    expect((await l.take(a, rule)).allowed).toBe(false);
    expect(await l.take(b, rule)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('rejects takes that could never succeed and malformed rules', async () => {
    const l = limiter();
    await expect(l.take(fresh('big'), { perSecond: 1, burst: 5 }, 6)).rejects.toThrow(RangeError);
    await expect(l.take(fresh('neg'), { perSecond: 1, burst: 5 }, -1)).rejects.toThrow(RangeError);
    await expect(l.take(fresh('rate'), { perSecond: 0, burst: 5 })).rejects.toThrow(RangeError);
    await expect(l.take(fresh('burst'), { perSecond: 1, burst: Number.NaN })).rejects.toThrow(RangeError);
    await expect(l.take('', { perSecond: 1, burst: 5 })).rejects.toThrow(RangeError);
  });

  it('allows exactly the burst out of 200 parallel takes', async () => {
    const l = limiter();
    const key = fresh('parallel');
    const decisions = await Promise.all(Array.from({ length: 200 }, () => l.take(key, frozen)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds > 0 && d.remaining === 0)).toBe(true);
  });
}

describe('memory rate limiter', () => {
  sharedBehaviour(() => new MemoryRateLimiter());

  it('is what createRateLimiter returns without REDIS_URL', async () => {
    const l = createRateLimiter(configWith());
    expect(l.kind).toBe('memory');
    await l.close();
  });

  it('follows the clock exactly', async () => {
    let now = 0;
    const l = new MemoryRateLimiter({ now: () => now });
    const rule = { perSecond: 5, burst: 10 };
    expect(await l.take('k', rule, 10)).toEqual({ allowed: true, limit: 10, remaining: 0, resetSeconds: 2, retryAfterSeconds: 0 });
    expect(await l.take('k', rule, 3)).toEqual({ allowed: false, limit: 10, remaining: 0, resetSeconds: 2, retryAfterSeconds: 1 });
    now = 400; // two tokens back
    expect(await l.take('k', rule)).toEqual({ allowed: true, limit: 10, remaining: 1, resetSeconds: 2, retryAfterSeconds: 0 });
    now = 1800; // one + seven, still short of ten
    expect(await l.take('k', rule, 9)).toMatchObject({ allowed: false, remaining: 8, retryAfterSeconds: 1 });
    now = 60_000;
    expect(await l.take('k', rule, 0)).toMatchObject({ allowed: true, remaining: 10, resetSeconds: 0 });
    expect(l.size).toBe(0); // a full bucket is not stored
  });

  it('decides at once with takeNow, and gives back what a take spent, never past the burst', () => {
    let now = 0;
    const l = new MemoryRateLimiter({ now: () => now });
    const rule = { perSecond: 1, burst: 3 };
    expect(l.takeNow('g', rule)).toMatchObject({ allowed: true, remaining: 2 });
    expect(l.takeNow('g', rule)).toMatchObject({ allowed: true, remaining: 1 });
    l.giveBack('g', rule);
    expect(l.takeNow('g', rule)).toMatchObject({ allowed: true, remaining: 1 });
    now = 500; // half a token back, then one given back: 1.5 + 1 = 2.5
    l.giveBack('g', rule);
    expect(l.takeNow('g', rule)).toMatchObject({ allowed: true, remaining: 1 });
    l.giveBack('g', rule);
    l.giveBack('g', rule);
    l.giveBack('g', rule);
    expect(l.size).toBe(0); // full again: not stored, and not above the burst
    expect(l.takeNow('g', rule)).toMatchObject({ allowed: true, remaining: 2 });
    l.giveBack('never-taken', rule);
    expect(l.takeNow('never-taken', rule)).toMatchObject({ remaining: 2 });
  });

  it('stays bounded, dropping refilled buckets before busy ones', async () => {
    let now = 0;
    const l = new MemoryRateLimiter({ now: () => now, maxBuckets: 100 });
    const rule = { perSecond: 10, burst: 1 };
    for (let i = 0; i < 90; i++) await l.take(`idle-${i}`, rule);
    now = 1000; // all idle buckets are full again
    for (let i = 0; i < 50; i++) await l.take(`busy-${i}`, rule);
    expect(l.size).toBe(50);
    for (let i = 0; i < 50; i++) expect((await l.take(`busy-${i}`, rule)).allowed).toBe(false);
    for (let i = 0; i < 500; i++) await l.take(`flood-${i}`, rule);
    expect(l.size).toBeLessThanOrEqual(100);
  });
});

if (!TEST_REDIS_URL) console.log('[ratelimit.test] Redis rate limiter tests skipped: PLINTH_TEST_REDIS_URL is not set.');

describe.skipIf(!TEST_REDIS_URL)('redis rate limiter', () => {
  const url = TEST_REDIS_URL!;
  const make = () => new RedisRateLimiter(url, { keyPrefix: RUN_PREFIX });
  const admin = TEST_REDIS_URL ? new Redis(url) : null;

  afterAll(async () => {
    // Slow rules leave keys with long TTLs; remove this run's keys.
    for await (const keys of admin!.scanStream({ match: `${RUN_PREFIX}*`, count: 500 })) {
      if ((keys as string[]).length) await admin!.del(...(keys as string[]));
    }
    await admin!.quit();
  });

  sharedBehaviour(make);

  it('is what createRateLimiter returns with REDIS_URL', async () => {
    const l = createRateLimiter(configWith({ REDIS_URL: url }), { keyPrefix: RUN_PREFIX });
    expect(l.kind).toBe('redis');
    expect((await l.take(fresh('factory'), frozen)).allowed).toBe(true);
    await l.close();
  });

  it('shares one bucket between processes', async () => {
    const [one, two] = [make(), make()];
    const key = fresh('shared');
    const rule = { perSecond: 0.001, burst: 3 };
    expect(await one.take(key, rule)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await two.take(key, rule)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await one.take(key, rule)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await two.take(key, rule)).allowed).toBe(false);
    await Promise.all([one.close(), two.close()]);
  });

  it('allows exactly the burst when two processes race for one bucket', async () => {
    const [one, two] = [make(), make()];
    const key = fresh('race');
    const decisions = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? one : two).take(key, frozen)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
    await Promise.all([one.close(), two.close()]);
  });

  it('lets idle buckets expire and stores no full ones', async () => {
    const l = make();
    const key = fresh('ttl');
    await l.take(key, { perSecond: 10, burst: 5 }, 2); // 200 ms to refill, plus the 1 s margin
    const ttl = await admin!.pttl(RUN_PREFIX + key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1200);
    const peek = fresh('peek');
    await l.take(peek, { perSecond: 10, burst: 5 }, 0);
    expect(await admin!.exists(RUN_PREFIX + peek)).toBe(0);
    await l.close();
  });

  it('rejects takes while Redis is unreachable instead of hanging', async () => {
    const l = new RedisRateLimiter('redis://127.0.0.1:1', { keyPrefix: RUN_PREFIX });
    await expect(l.take(fresh('down'), frozen)).rejects.toThrow();
    await l.close();
  });
});
