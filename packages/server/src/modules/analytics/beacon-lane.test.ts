import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../test/app.js';
import { serve, origin, JSON_TYPE, BODY_LIMIT, post, fromShop, routedOnly, json, errorOf, stable, view, events, beaconOf, totals, countsOf, warm, type Served, type Answer } from '../../test/beacon-lane.js';

/**
 * The beacon's lane (beacon-lane.ts) over a real connection (app.inject never reaches it): parity with the
 * router, events stored once, refused bodies answered by the router, requests it must not take.
 */
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

    const once = countsOf(list);
    expect(await totals(s, org)).toEqual(Object.fromEntries(Object.entries(once).map(([t, n]) => [t, 2 * n])));
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
      { name: 'a conversion without its name', body: beaconOf([{ type: 'conversion', product_id: 'p', value: 3 }]), status: 422, code: 'validation_failed' },
      { name: 'a name on a view', body: beaconOf([{ ...view(), name: 'purchase' }]), status: 422, code: 'validation_failed' },
      { name: 'a conversion name not in the list', body: beaconOf([{ type: 'conversion', product_id: 'p', name: 'refund' }]), status: 422, code: 'validation_failed' },
      { name: 'an experiment_id without its arm', body: beaconOf([{ ...view(), experiment_id: 'expt_x' }]), status: 422, code: 'validation_failed' },
      { name: 'a currency that is not ISO 4217', body: beaconOf([{ type: 'conversion', product_id: 'p', name: 'purchase', currency: 'euro' }]), status: 422, code: 'validation_failed' },
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
