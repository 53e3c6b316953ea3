import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Deps } from '../../deps.js';
import { FrontDoor } from '../../http/front-door.js';
import { MemoryRateLimiter, type RateLimiter } from '../../platform/ratelimit/index.js';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';
import { PUBLIC_CACHE_MS } from './public-read-lane.js';

/**
 * The storefront read's lane (http/front-door.ts) answers before routing, so `app.inject()` never reaches
 * it: these tests listen on a port and fetch. Each one compares the lane with the routed answer and counts
 * what the lane took, so a lane that answers too much (a refused key, a foreign origin) or differently fails.
 */

interface Served {
  t: TestApp;
  door: FrontDoor;
  base: string;
}

/** An app on a real port, with the FrontDoor its buildApp made (caught as its lane is added). */
async function serve(env: Record<string, string> = {}, overrides: Partial<Deps> = {}): Promise<Served> {
  const add = vi.spyOn(FrontDoor.prototype, 'add');
  let t: TestApp;
  let door: FrontDoor | undefined;
  try {
    t = await createTestApp(env, overrides);
    door = add.mock.contexts[0] as FrontDoor | undefined; // before mockRestore, which clears the record
  } finally {
    add.mockRestore();
  }
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  if (!door) {
    await t.close();
    throw new Error('no lane was added to the front door');
  }
  return { t, door, base: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` };
}

const origin = 'https://shop.example';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

async function fetchOf(s: Served, path: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  const res = await fetch(`${s.base}${path}`, { method, headers });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: Buffer.from(await res.arrayBuffer()) };
}

/** A storefront read: a publishable key from a shop's page. */
const readAs = (s: Served, id: string, key = s.t.org.publishable_key, extra: Record<string, string> = {}) =>
  fetchOf(s, `/v1/products/${id}`, { ...bearer(key), origin, ...extra });

/** The answer and how many requests the lane took for it. */
async function counted(s: Served, request: () => Promise<Answer>): Promise<{ answer: Answer; byLane: number }> {
  const before = s.door.answered;
  const answer = await request();
  return { answer, byLane: s.door.answered - before };
}

const errorCode = (a: Answer) => (JSON.parse(a.body.toString()) as { error: { code: string } }).error.code;

/** Headers that differ by request: the id (checked apart) and the clock. */
const VARYING = new Set(['x-request-id', 'date']);
const stable = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).filter(([name]) => !VARYING.has(name)));

describe('the public read lane', { timeout: 30_000 }, () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
  }, 60_000);
  afterAll(async () => s?.t.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers the second read as the router answered the first: status, bytes and headers', async () => {
    const id = await seedProduct(s.t, s.t.org.org_id, { status: 'published', title: 'Lamp' });
    const routed = await counted(s, () => readAs(s, id));
    const lane = await counted(s, () => readAs(s, id));
    expect(routed.byLane).toBe(0);
    expect(lane.byLane).toBe(1);

    expect(routed.answer.status).toBe(200);
    expect(lane.answer.status).toBe(200);
    expect(JSON.parse(routed.answer.body.toString()).title).toBe('Lamp');
    expect(lane.answer.body.equals(routed.answer.body)).toBe(true);

    const a = routed.answer.headers;
    const b = lane.answer.headers;
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    expect(stable(b)).toEqual(stable(a));
    expect(a['x-request-id']).toMatch(/^req_/);
    expect(b['x-request-id']).toMatch(/^req_/);
    expect(b['x-request-id']).not.toBe(a['x-request-id']);
    expect(b.date).toBeDefined();

    expect(b.etag).toMatch(/^"[A-Za-z0-9_-]{16,}"$/);
    expect(b['cache-control']).toBe('public, max-age=60, stale-while-revalidate=300');
    expect(b.vary).toBe('Origin, Authorization');
    expect(b['access-control-allow-origin']).toBe(origin);
    expect(b['access-control-expose-headers']).toBe('X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset');
    expect(b['content-type']).toBe('application/json; charset=utf-8');
    expect(b['content-length']).toBe(String(routed.answer.body.length));
  });

  it('answers 304 to an If-None-Match that holds the tag, and 200 to one that does not', async () => {
    const id = await seedProduct(s.t, s.t.org.org_id, { status: 'published' });
    const first = await readAs(s, id);
    const etag = first.headers.etag;
    for (const tags of [etag, `"x", ${etag}`, `W/${etag}`]) {
      const { answer, byLane } = await counted(s, () => readAs(s, id, s.t.org.publishable_key, { 'if-none-match': tags }));
      expect(byLane, tags).toBe(1);
      expect(answer.status, tags).toBe(304);
      expect(answer.headers.etag).toBe(etag);
      expect(answer.body.length).toBe(0);
    }
    const other = await counted(s, () => readAs(s, id, s.t.org.publishable_key, { 'if-none-match': '"something-else"' }));
    expect(other.byLane).toBe(1);
    expect(other.answer.status).toBe(200);
    expect(other.answer.body.equals(first.body)).toBe(true);
  });

  it('leaves to the router every read it must not answer, warm caches or not', async () => {
    const id = await seedProduct(s.t, s.t.org.org_id, { status: 'published' });
    const pk = s.t.org.publishable_key;
    const good = await readAs(s, id);
    expect(good.status).toBe(200);
    const stranger = await s.t.bootstrap();
    const cases: { name: string; request: () => Promise<Answer>; status: number; code?: string }[] = [
      { name: 'foreign origin', request: () => readAs(s, id, pk, { origin: 'https://elsewhere.example' }), status: 403, code: 'forbidden' },
      { name: 'no origin', request: () => fetchOf(s, `/v1/products/${id}`, bearer(pk)), status: 403, code: 'forbidden' },
      { name: 'secret key', request: () => readAs(s, id, s.t.org.secret_key), status: 200 },
      { name: 'unknown pk_ key', request: () => readAs(s, id, `${pk.slice(0, -4)}zzzz`), status: 401, code: 'unauthenticated' },
      { name: 'query string', request: () => fetchOf(s, `/v1/products/${id}?fields=all`, { ...bearer(pk), origin }), status: 200 },
      { name: 'trailing slash', request: () => fetchOf(s, `/v1/products/${id}/`, { ...bearer(pk), origin }), status: 404, code: 'not_found' },
      { name: 'HEAD', request: () => fetchOf(s, `/v1/products/${id}`, { ...bearer(pk), origin }, 'HEAD'), status: 200 },
      { name: "another organization's key", request: () => readAs(s, id, stranger.publishable_key), status: 404, code: 'not_found' },
    ];
    for (const c of cases) {
      // Twice: the second time the key (or its refusal) is cached, as the lane would find it.
      for (let i = 0; i < 2; i++) {
        const { answer, byLane } = await counted(s, c.request);
        expect(byLane, c.name).toBe(0);
        expect(answer.status, c.name).toBe(c.status);
        if (c.code) expect(errorCode(answer), c.name).toBe(c.code);
        expect(answer.headers['x-request-id'], c.name).toMatch(/^req_/);
      }
    }
  });

  it('a revoked publishable key is refused at once in this process, by the router', async () => {
    const id = await seedProduct(s.t, s.t.org.org_id, { status: 'published' });
    const created = await s.t.app.inject({
      method: 'POST',
      url: '/v1/api_keys',
      headers: bearer(s.t.org.secret_key),
      payload: { type: 'publishable', project_id: s.t.org.project_id },
    });
    expect(created.statusCode, created.body).toBe(201);
    const pk = created.json().key as string;
    await readAs(s, id, pk);
    expect((await counted(s, () => readAs(s, id, pk))).byLane).toBe(1);

    const revoked = await s.t.app.inject({ method: 'DELETE', url: `/v1/api_keys/${created.json().id}`, headers: bearer(s.t.org.secret_key) });
    expect(revoked.statusCode, revoked.body).toBe(200);
    for (let i = 0; i < 2; i++) {
      const { answer, byLane } = await counted(s, () => readAs(s, id, pk));
      expect(byLane).toBe(0);
      expect(answer.status).toBe(401);
      expect(errorCode(answer)).toBe('unauthenticated');
    }
  });

  it('an unpublished product is served from the lane until its answer expires, then the router says 404', async () => {
    const id = await seedProduct(s.t, s.t.org.org_id, { status: 'published' });
    await readAs(s, id);
    const unpublished = await s.t.app.inject({
      method: 'POST',
      url: '/v1/products/publish',
      headers: bearer(s.t.org.secret_key),
      payload: { ids: [id], status: 'draft' },
    });
    expect(unpublished.statusCode, unpublished.body).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    // Within the window the cached answer still stands: that is the documented staleness.
    const stale = await counted(s, () => readAs(s, id));
    expect(stale.byLane).toBe(1);
    expect(stale.answer.status).toBe(200);

    vi.setSystemTime(Date.now() + PUBLIC_CACHE_MS + 1);
    for (let i = 0; i < 2; i++) {
      const { answer, byLane } = await counted(s, () => readAs(s, id));
      expect(byLane).toBe(0);
      expect(answer.status).toBe(404);
      expect(errorCode(answer)).toBe('not_found');
      expect(answer.headers['cache-control'] ?? '').not.toMatch(/public/);
    }
  });
});

describe('the public read lane with rate limits on', { timeout: 30_000 }, () => {
  const limits = { PLINTH_RATE_LIMITS: 'on', PLINTH_RATE_LIMIT_API_BURST: '3', PLINTH_RATE_LIMIT_API_PER_SECOND: '0.001' };
  let s: Served | undefined;
  afterEach(async () => {
    await s?.t.close();
    s = undefined;
  });

  // Both backends: the lane spends from buckets in this process, so the test gives it one (Redis has none).
  it('spends from the same bucket as the router, says so in RateLimit headers, and leaves the 429 to the router', async () => {
    s = await serve(limits, { rateLimiter: new MemoryRateLimiter() });
    const id = await seedProduct(s.t, s.t.org.org_id, { status: 'published' });
    const routed = await counted(s, () => readAs(s!, id));
    expect(routed.byLane).toBe(0);
    expect(routed.answer.status).toBe(200);
    expect(routed.answer.headers['ratelimit-limit']).toBe('3');
    expect(routed.answer.headers['ratelimit-remaining']).toBe('2');

    for (const remaining of ['1', '0']) {
      const { answer, byLane } = await counted(s, () => readAs(s!, id));
      expect(byLane).toBe(1);
      expect(answer.status).toBe(200);
      expect(answer.headers['ratelimit-limit']).toBe('3');
      expect(answer.headers['ratelimit-remaining']).toBe(remaining);
      expect(answer.headers['ratelimit-reset']).toMatch(/^\d+$/);
      expect(stable(answer.headers)).toEqual({ ...stable(routed.answer.headers), 'ratelimit-remaining': remaining, 'ratelimit-reset': answer.headers['ratelimit-reset'] });
    }

    const refused = await counted(s, () => readAs(s!, id));
    expect(refused.byLane).toBe(0);
    expect(refused.answer.status).toBe(429);
    expect(errorCode(refused.answer)).toBe('rate_limited');
    expect(refused.answer.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.answer.headers['ratelimit-remaining']).toBe('0');
  });

  it('is not installed when the buckets are shared (a limiter without takeNow, as Redis)', async () => {
    const memory = new MemoryRateLimiter();
    const shared: RateLimiter = { kind: 'redis', take: (bucket, rule, cost) => memory.take(bucket, rule, cost), close: async () => {} };
    const add = vi.spyOn(FrontDoor.prototype, 'add');
    let t: TestApp | undefined;
    try {
      t = await createTestApp(limits, { rateLimiter: shared });
      expect(add).not.toHaveBeenCalled();
    } finally {
      add.mockRestore();
      await t?.close();
    }
  });
});
