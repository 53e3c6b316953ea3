import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Deps } from '../../deps.js';
import { FrontDoor } from '../../http/front-door.js';
import { MemoryRateLimiter } from '../../platform/ratelimit/index.js';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import type { BootstrapResult } from '../orgs/orgs.service.js';

/**
 * The beacon's lane (beacon-lane.ts) takes `POST /v1/beacon` before routing, so `app.inject()` never reaches
 * it: these tests listen on a port and fetch. Each compares the lane's answer with the router's and counts
 * what the lane took, so a lane that takes too much, answers differently or stores twice (or not at all) fails.
 */

/** A test app listening on a port, with the front door it answers through. */
type Served = { t: TestApp; door: FrontDoor; base: string };

/** The FrontDoor is caught as buildApp adds its first lane: it is the spy's `this`. */
async function serve(env: Record<string, string> = {}, overrides: Partial<Deps> = {}): Promise<Served> {
  const add = vi.spyOn(FrontDoor.prototype, 'add');
  let door = undefined as FrontDoor | undefined;
  const t = await createTestApp(env, overrides).finally(() => {
    door = add.mock.contexts[0] as FrontDoor | undefined; // mockRestore forgets the calls
    add.mockRestore();
  });
  if (!door) {
    await t.close();
    throw new Error('buildApp added no lane');
  }
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return { t, door, base: `http://127.0.0.1:${port}` };
}

const origin = 'https://shop.example';
const JSON_TYPE = { 'content-type': 'application/json' };
/** Small, so an over-limit body is cheap; 101 events of `view` (about 3.3 KB) still fit under it. */
const BODY_LIMIT = 8192;

/** What came back over the connection, and how many requests the lane took meanwhile (1: this one). */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  byLane: number;
}

type Body = string | ReadableStream<Uint8Array>;

async function post(s: Served, headers: Record<string, string>, body: Body, path = '/v1/beacon'): Promise<Answer> {
  // duplex is what fetch needs to send a stream (chunked, with no Content-Length); Node's types lack it.
  const init = { method: 'POST', headers, body, ...(typeof body !== 'string' && { duplex: 'half' }) } as RequestInit;
  const taken = s.door.answered;
  const res = await fetch(`${s.base}${path}`, init);
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: Object.fromEntries(res.headers), body: bytes, byLane: s.door.answered - taken };
}

/** A beacon from a shop's page: a publishable key, an allowed Origin, a JSON body. */
const fromShop = (key: string, extra: Record<string, string> = {}) => ({ ...bearer(key), origin, ...JSON_TYPE, ...extra });

/** The same request through the router only. */
const routedOnly = (s: Served, headers: Record<string, string>, body: string, path = '/v1/beacon') =>
  s.t.app.inject({ method: 'POST', url: path, headers, payload: body });

interface Envelope {
  error: { code: string; message: string; details: unknown; request_id: string };
}
const json = (a: Answer) => JSON.parse(a.body.toString()) as Envelope;
/** An error envelope but for its request id, which is each request's own. */
const errorOf = (e: Envelope) => ({ ...e.error, request_id: undefined });

/** Headers that differ by request (the id, checked apart, and the clock) or belong to the connection. */
const VARYING = new Set(['x-request-id', 'date', 'connection', 'keep-alive', 'transfer-encoding']);
const stable = (h: Record<string, unknown>) => Object.fromEntries(Object.entries(h).filter(([name]) => !VARYING.has(name)).map(([k, v]) => [k, String(v)]));

const view = (product = 'prod_lane') => ({ type: 'view', product_id: product });
const events = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    i % 3 === 0 ? view(`prod_${i % 4}`) : i % 3 === 1 ? { type: 'ar_enter', product_id: 'prod_ar', viewer_id: `v${i}` } : { type: 'ar_session_ended', product_id: 'prod_ar', duration_ms: 1000 * i },
  );
const beaconOf = (list: object[]) => JSON.stringify({ events: list });

type Totals = { view: number; ar_enter: number; ar_session_ended: number };
async function totals(s: Served, org: BootstrapResult): Promise<Totals> {
  const res = await s.t.app.inject({ method: 'GET', url: '/v1/usage', headers: bearer(org.secret_key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().totals as Totals;
}
const countsOf = (list: { type: string }[]): Totals => ({
  view: list.filter((e) => e.type === 'view').length,
  ar_enter: list.filter((e) => e.type === 'ar_enter').length,
  ar_session_ended: list.filter((e) => e.type === 'ar_session_ended').length,
});

/**
 * A beacon through the router, so the key is in the 5 s cache and the next request can be the lane's. Its
 * event (one view of `prod_warm`) is counted like any other.
 */
async function warm(s: Served, key: string): Promise<void> {
  const res = await routedOnly(s, fromShop(key), beaconOf([view('prod_warm')]));
  expect(res.statusCode, res.body).toBe(202);
}

describe('the beacon lane', { timeout: 30_000 }, () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve({ PLINTH_BODY_LIMIT_BYTES: String(BODY_LIMIT) });
  }, 60_000);
  afterAll(async () => s?.t.close());

  it.each([1, 20])('answers the second beacon (%i events) as the router answered the first: status, bytes and headers', async (n) => {
    const org = await s.t.bootstrap(); // a key no request has resolved yet
    // One event more than a day old: the receipt says it was clamped.
    const list = [...events(n - 1), { ...view(), occurred_at: new Date(Date.now() - 48 * 3_600_000).toISOString() }];
    const routed = await post(s, fromShop(org.publishable_key), beaconOf(list));
    const lane = await post(s, fromShop(org.publishable_key), beaconOf(list));
    expect(routed.byLane).toBe(0);
    expect(lane.byLane).toBe(1);

    expect(routed.status).toBe(202);
    expect(lane.status).toBe(202);
    expect(routed.body.toString()).toBe(`{"object":"beacon_receipt","accepted":${n},"clamped":1}`);
    expect(lane.body.equals(routed.body)).toBe(true);

    const [a, b] = [routed.headers, lane.headers];
    // Every header of the routed answer, with its value, but for the request id and the date.
    expect(stable(b)).toEqual(stable(a));
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    for (const id of [a['x-request-id'], b['x-request-id']]) expect(id).toMatch(/^req_/);
    expect(b['x-request-id']).not.toBe(a['x-request-id']);
    expect(b.date).toBeDefined();
    expect(b['access-control-allow-origin']).toBe(origin);
    expect(b.vary).toBe('Origin');
    expect(b['content-type']).toBe('application/json; charset=utf-8');
    expect(b['content-length']).toBe(String(routed.body.length));

    expect(await totals(s, org)).toEqual({
      view: 2 * countsOf(list).view,
      ar_enter: 2 * countsOf(list).ar_enter,
      ar_session_ended: 2 * countsOf(list).ar_session_ended,
    });
  });

  it('takes a JSON body with a charset, and one exactly at the body limit', async () => {
    const org = await s.t.bootstrap();
    await warm(s, org.publishable_key);
    const charset = await post(s, fromShop(org.publishable_key, { 'content-type': 'application/json; charset=utf-8' }), beaconOf([view()]));
    expect(charset.byLane).toBe(1);
    expect(charset.status).toBe(202);

    // Padded to the limit through viewer ids (at most 200 characters each).
    const list: { type: string; product_id: string; viewer_id: string }[] = [];
    while (beaconOf(list).length < BODY_LIMIT - 300) list.push({ ...view(), viewer_id: 'v'.repeat(200) });
    list.push({ ...view(), viewer_id: 'v' });
    list[list.length - 1].viewer_id = 'v'.repeat(1 + BODY_LIMIT - Buffer.byteLength(beaconOf(list)));
    const full = beaconOf(list);
    expect(Buffer.byteLength(full)).toBe(BODY_LIMIT);
    const atLimit = await post(s, fromShop(org.publishable_key), full);
    expect(atLimit.byLane).toBe(1);
    expect(atLimit.status, atLimit.body.toString()).toBe(202);
    expect(JSON.parse(atLimit.body.toString()).accepted).toBe(list.length);
    expect((await totals(s, org)).view).toBe(2 + list.length);
  });

  it('stores every event of concurrent lane beacons exactly once', async () => {
    const org = await s.t.bootstrap();
    await warm(s, org.publishable_key);
    const bodies = Array.from({ length: 30 }, (_, i) => events(1 + (i % 7)));
    const before = s.door.answered;
    const answers = await Promise.all(bodies.map((list) => post(s, fromShop(org.publishable_key), beaconOf(list))));
    expect(s.door.answered - before).toBe(30);
    answers.forEach((a, i) => {
      expect(a.status, a.body.toString()).toBe(202);
      expect(JSON.parse(a.body.toString())).toEqual({ object: 'beacon_receipt', accepted: bodies[i].length, clamped: 0 });
    });
    const sent = countsOf(bodies.flat());
    expect(await totals(s, org)).toEqual({ ...sent, view: sent.view + 1 }); // + the warming view
  });

  it('gives every refused body exactly the routed answer, and stores nothing of it', async () => {
    const org = await s.t.bootstrap();
    const other = await s.t.bootstrap();
    await warm(s, org.publishable_key);
    const stored = await totals(s, org);
    const cases: { name: string; body: string; status: number; code: string }[] = [
      { name: 'invalid JSON', body: '{"events":[', status: 400, code: 'invalid_request' },
      { name: 'empty object', body: '{}', status: 422, code: 'validation_failed' },
      { name: 'unknown field', body: JSON.stringify({ events: [view()], extra: 1 }), status: 422, code: 'validation_failed' },
      { name: 'unknown field of an event', body: JSON.stringify({ events: [{ ...view(), colour: 'red' }] }), status: 422, code: 'validation_failed' },
      { name: '"__proto__" key', body: '{"events":[{"type":"view","product_id":"p"}],"__proto__":{"admin":true}}', status: 400, code: 'invalid_request' },
      { name: 'wrong event type', body: JSON.stringify({ events: [view(), { type: 'click', product_id: 'p' }] }), status: 422, code: 'validation_failed' },
      { name: '101 events', body: beaconOf(Array.from({ length: 101 }, () => view())), status: 422, code: 'validation_failed' },
      // A JSON escape: UTF-8 cannot carry a lone surrogate any other way.
      { name: 'lone surrogate in product_id', body: '{"events":[{"type":"view","product_id":"a\\ud800b"}]}', status: 422, code: 'validation_failed' },
      { name: "another organization's org_id", body: JSON.stringify({ events: [view()], org_id: other.org_id }), status: 404, code: 'not_found' },
    ];
    for (const c of cases) {
      const headers = fromShop(org.publishable_key);
      // The router's answer first: it also keeps the key in the 5 s cache for the lane.
      const routed = await routedOnly(s, headers, c.body);
      const answer = await post(s, headers, c.body);
      expect(answer.byLane, c.name).toBe(1);
      expect(routed.statusCode, `${c.name}: ${routed.body}`).toBe(c.status);
      expect(routed.json().error.code, c.name).toBe(c.code);
      expect(answer.status, c.name).toBe(routed.statusCode);
      expect(errorOf(json(answer)), c.name).toEqual(errorOf(routed.json()));
      expect(stable(answer.headers), c.name).toEqual(stable(routed.headers));
      expect(answer.headers['x-request-id'], c.name).toMatch(/^req_/);
      expect(json(answer).error.request_id, c.name).toBe(answer.headers['x-request-id']);
    }
    expect(await totals(s, org)).toEqual(stored);
  });

  it('replays an org_id of its own organization through the router, which stores it once', async () => {
    const org = await s.t.bootstrap();
    await warm(s, org.publishable_key);
    const answer = await post(s, fromShop(org.publishable_key), JSON.stringify({ events: [view(), view()], org_id: org.org_id }));
    expect(answer.byLane).toBe(1);
    expect(answer.status).toBe(202);
    expect(answer.body.toString()).toBe('{"object":"beacon_receipt","accepted":2,"clamped":0}');
    expect((await totals(s, org)).view).toBe(3);
  });

  it('a commit that fails is replayed: the router tries again and answers its 500, and nothing is stored', async () => {
    const org = await s.t.bootstrap();
    await warm(s, org.publishable_key);
    const stored = await totals(s, org);
    const db = s.t.deps.database.db;
    await sql`alter table usage_daily rename to usage_daily_away`.execute(db);
    let lane: Answer;
    let routed: Awaited<ReturnType<typeof routedOnly>>;
    try {
      routed = await routedOnly(s, fromShop(org.publishable_key), beaconOf([view(), view()]));
      lane = await post(s, fromShop(org.publishable_key), beaconOf([view(), view()]));
    } finally {
      await sql`alter table usage_daily_away rename to usage_daily`.execute(db);
    }
    expect(routed.statusCode).toBe(500);
    expect(lane.byLane).toBe(1);
    expect(lane.status).toBe(500);
    expect(errorOf(json(lane))).toEqual(errorOf(routed.json()));
    expect(stable(lane.headers)).toEqual(stable(routed.headers));
    expect(await totals(s, org)).toEqual(stored);
  });

  // The router keeps a 202 under its Idempotency-Key (which CORS lets a page send) and answers a retry from
  // that record, storing nothing; the lane takes such a beacon as any other.
  const idempotent = async (send: (headers: Record<string, string>, body: string) => Promise<Omit<Answer, 'byLane'>>) => {
    const org = await s.t.bootstrap();
    await warm(s, org.publishable_key);
    const headers = fromShop(org.publishable_key, { 'idempotency-key': `beacon-${org.org_id}` });
    const body = beaconOf([view(), view()]);
    const first = await send(headers, body);
    const retry = await send(headers, body);
    expect(first.status).toBe(202);
    expect(retry.status).toBe(202);
    expect(retry.body.equals(first.body)).toBe(true);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect((await totals(s, org)).view).toBe(1 + 2);
  };

  it('the router answers a beacon retried under its Idempotency-Key from the record, and stores it once', async () => {
    await idempotent(async (headers, body) => {
      const res = await routedOnly(s, headers, body);
      return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.rawPayload };
    });
  });

  // The lane leaves a beacon with an Idempotency-Key to the router, which keeps the record.
  it('the lane answers a beacon retried under its Idempotency-Key as the router does (stored once)', async () => {
    await idempotent((headers, body) => post(s, headers, body));
  });

  it('leaves to the router every beacon it must not take, with the key cached', async () => {
    const org = await s.t.bootstrap();
    const pk = org.publishable_key;
    const body = beaconOf([view()]);
    const chunked = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(Buffer.from(body.slice(0, 10)));
          controller.enqueue(Buffer.from(body.slice(10)));
          controller.close();
        },
      });
    const tooLarge = beaconOf(Array.from({ length: 300 }, () => view()));
    expect(tooLarge.length).toBeGreaterThan(BODY_LIMIT);
    const cases: { name: string; request: () => Promise<Answer>; status: number; code?: string; stored: number }[] = [
      { name: 'query string', request: () => post(s, fromShop(pk), body, `/v1/beacon?org_id=${org.org_id}`), status: 202, stored: 1 },
      // The framework reads text/plain as a string, which the schema refuses.
      { name: 'text/plain', request: () => post(s, fromShop(pk, { 'content-type': 'text/plain' }), body), status: 422, code: 'validation_failed', stored: 0 },
      { name: 'no origin', request: () => post(s, { ...bearer(pk), ...JSON_TYPE }, body), status: 403, code: 'forbidden', stored: 0 },
      { name: 'foreign origin', request: () => post(s, fromShop(pk, { origin: 'https://elsewhere.example' }), body), status: 403, code: 'forbidden', stored: 0 },
      // Counted as internal traffic, which usage leaves out by default.
      { name: 'secret key', request: () => post(s, { ...bearer(org.secret_key), ...JSON_TYPE }, body), status: 202, stored: 0 },
      { name: 'unknown pk_ key', request: () => post(s, fromShop(`${pk.slice(0, -4)}zzzz`), body), status: 401, code: 'unauthenticated', stored: 0 },
      { name: 'chunked, no Content-Length', request: () => post(s, fromShop(pk), chunked()), status: 202, stored: 1 },
      { name: 'over the body limit', request: () => post(s, fromShop(pk), tooLarge), status: 413, code: 'payload_too_large', stored: 0 },
    ];
    for (const c of cases) {
      // Twice: the second time the key (or its refusal) is cached, as the lane would find it.
      for (let i = 0; i < 2; i++) {
        await warm(s, pk);
        const before = await totals(s, org);
        const answer = await c.request();
        expect(answer.byLane, c.name).toBe(0);
        expect(answer.status, `${c.name}: ${answer.body.toString()}`).toBe(c.status);
        if (c.code) expect(json(answer).error.code, c.name).toBe(c.code);
        if (c.code === 'payload_too_large') expect(json(answer).error.details).toEqual({ limit_bytes: BODY_LIMIT });
        expect(answer.headers['x-request-id'], c.name).toMatch(/^req_/);
        const after = await totals(s, org);
        expect(after.view - before.view, c.name).toBe(c.stored);
      }
    }
  });

  it('a revoked publishable key is refused at once, by the router', async () => {
    const owner = bearer(s.t.org.secret_key);
    const payload = { type: 'publishable', project_id: s.t.org.project_id };
    const created = await s.t.app.inject({ method: 'POST', url: '/v1/api_keys', headers: owner, payload });
    expect(created.statusCode, created.body).toBe(201);
    const { id, key: pk } = created.json() as { id: string; key: string };
    await warm(s, pk);
    expect((await post(s, fromShop(pk), beaconOf([view()]))).byLane).toBe(1);
    const before = await totals(s, s.t.org);

    const revoked = await s.t.app.inject({ method: 'DELETE', url: `/v1/api_keys/${id}`, headers: owner });
    expect(revoked.statusCode, revoked.body).toBe(200);
    for (let i = 0; i < 2; i++) {
      const answer = await post(s, fromShop(pk), beaconOf([view()]));
      expect(answer.byLane).toBe(0);
      expect(answer.status).toBe(401);
      expect(json(answer).error.code).toBe('unauthenticated');
    }
    expect(await totals(s, s.t.org)).toEqual(before);
  });
});

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
