import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../platform/ratelimit/index.js';
import { serve, post, fromShop, routedOnly, json, stable, view, events, beaconOf, totals, type Served, type Answer } from '../../test/beacon-lane.js';

/** The beacon's lane with token buckets: one token per beacon, as through the router, and the 429 left to it. */
describe('the beacon lane with rate limits on', { timeout: 30_000 }, () => {
  const limits = { PLINTH_RATE_LIMITS: 'on', PLINTH_RATE_LIMIT_BEACON_BURST: '4', PLINTH_RATE_LIMIT_BEACON_PER_SECOND: '0.001' };
  const open: Served[] = [];
  afterEach(async () => {
    for (const served of open.splice(0)) await served.t.close();
  });
  // Both backends: the lane spends from buckets in this process, so the test gives it one (Redis has none).
  const serveLimited = async () => {
    const served = await serve(limits, { rateLimiter: new MemoryRateLimiter() });
    open.push(served);
    return served;
  };

  const rate = (h: Record<string, unknown>) => ({ limit: String(h['ratelimit-limit']), remaining: String(h['ratelimit-remaining']) });

  it('spends one token per beacon as the router does, valid or not, says so in RateLimit headers, and leaves the 429 to the router', async () => {
    const served = await serveLimited();
    const org = await served.t.bootstrap(); // its key through the lane
    const twin = await served.t.bootstrap(); // the same requests through the router only
    const good = beaconOf([view()]);
    const other = await served.t.bootstrap();
    const refusedBodies = [
      { body: JSON.stringify({ events: [{ type: 'click', product_id: 'p' }] }), status: 422 },
      // Valid for the schema, refused by the service: the lane must leave it to the router before spending.
      { body: JSON.stringify({ events: [view()], org_id: other.org_id }), status: 404 },
    ];

    const routed = await post(served, fromShop(org.publishable_key), good);
    expect(routed.byLane).toBe(0);
    expect(routed.status).toBe(202);
    expect(rate(routed.headers)).toEqual({ limit: '4', remaining: '3' });
    const twinFirst = await routedOnly(served, fromShop(twin.publishable_key), good);
    expect(rate(twinFirst.headers)).toEqual(rate(routed.headers));

    // A refused body costs the router one token; the lane, replaying it, must cost one too (not none, not two).
    let remaining = 3;
    for (const { body, status } of refusedBodies) {
      remaining--;
      const refused = await post(served, fromShop(org.publishable_key), body);
      const twinRefused = await routedOnly(served, fromShop(twin.publishable_key), body);
      expect(refused.byLane).toBe(1);
      expect(refused.status).toBe(status);
      expect(twinRefused.statusCode).toBe(status);
      expect(rate(refused.headers)).toEqual({ limit: '4', remaining: String(remaining) });
      expect(rate(refused.headers)).toEqual(rate(twinRefused.headers));
    }

    const lane = await post(served, fromShop(org.publishable_key), good);
    const twinLast = await routedOnly(served, fromShop(twin.publishable_key), good);
    expect(lane.byLane).toBe(1);
    expect(lane.status).toBe(202);
    expect(rate(lane.headers)).toEqual({ limit: '4', remaining: '0' });
    expect(rate(lane.headers)).toEqual(rate(twinLast.headers));
    expect(lane.headers['ratelimit-reset']).toMatch(/^\d+$/);
    expect(stable(lane.headers)).toEqual({
      ...stable(routed.headers),
      'ratelimit-remaining': '0',
      'ratelimit-reset': lane.headers['ratelimit-reset'],
    });

    // Empty: the lane reads the body, finds no token and replays; the router says 429.
    const empty = await post(served, fromShop(org.publishable_key), good);
    const twinEmpty = await routedOnly(served, fromShop(twin.publishable_key), good);
    expect(empty.byLane).toBe(1);
    expect(twinEmpty.statusCode).toBe(429);
    expect(empty.status).toBe(429);
    expect(json(empty).error.code).toBe('rate_limited');
    expect(json(empty).error.details).toEqual(twinEmpty.json().error.details);
    expect(empty.headers['retry-after']).toMatch(/^\d+$/);
    expect(empty.headers['ratelimit-remaining']).toBe('0');
    expect(Object.keys(stable(empty.headers)).sort()).toEqual(Object.keys(stable(twinEmpty.headers)).sort());

    // Two accepted beacons of one view each, for both keys; nothing of the refused ones.
    expect((await totals(served, org)).view).toBe(2);
    expect((await totals(served, twin)).view).toBe(2);
  });
  // The lane gives back the token its failed commit spent before replaying, and the router spends one.
  it('a commit that fails costs one token through the lane, as through the router', async () => {
    const served = await serveLimited();
    const org = await served.t.bootstrap();
    const twin = await served.t.bootstrap();
    const good = beaconOf([view()]);
    expect((await routedOnly(served, fromShop(org.publishable_key), good)).statusCode).toBe(202); // the key cached
    expect((await routedOnly(served, fromShop(twin.publishable_key), good)).statusCode).toBe(202);
    const db = served.t.deps.database.db;
    await sql`alter table usage_daily rename to usage_daily_away`.execute(db);
    let lane: Answer;
    let routed: Awaited<ReturnType<typeof routedOnly>>;
    try {
      lane = await post(served, fromShop(org.publishable_key), good);
      routed = await routedOnly(served, fromShop(twin.publishable_key), good);
    } finally {
      await sql`alter table usage_daily_away rename to usage_daily`.execute(db);
    }
    expect(lane.byLane).toBe(1);
    expect(routed.statusCode).toBe(500);
    expect(lane.status).toBe(500);
    expect(rate(routed.headers)).toEqual({ limit: '4', remaining: '2' });
    expect(rate(lane.headers)).toEqual(rate(routed.headers));
  });
});
