import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = t.org.secret_key;
});
afterAll(async () => t?.close());

const view = { type: 'view', product_id: 'prod_x' };
const beacon = (payload: unknown, headers: Record<string, string> = bearer(key), url = '/v1/beacon') =>
  t.app.inject({ method: 'POST', url, headers, payload: payload as object });
const usage = (qs: string, headers: Record<string, string> = bearer(key)) => t.app.inject({ method: 'GET', url: `/v1/usage?${qs}`, headers });

function expectValidation(res: { statusCode: number; json(): any }, path: string, message?: RegExp) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(422);
  expect(res.json().error.code).toBe('validation_failed');
  const entry = res.json().error.details.errors.find((e: { path: string }) => e.path === path);
  expect(entry, JSON.stringify(res.json().error.details)).toBeDefined();
  if (message) expect(entry.message).toMatch(message);
}

const storedEvents = async () => Number((await t.deps.database.db.selectFrom('beacon_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

describe('POST /v1/beacon: refused bodies', () => {
  it('101 events: 422, and none of them is stored', async () => {
    const before = await storedEvents();
    expectValidation(await beacon({ events: Array.from({ length: 101 }, () => view) }), 'body.events');
    expect(await storedEvents()).toBe(before);
  });

  it('100 events is the most, and is accepted', async () => {
    const res = await beacon({ events: Array.from({ length: 100 }, () => view) });
    expect(res.statusCode).toBe(202);
    expect(res.json().accepted).toBe(100);
  });

  it('no events, or no events field', async () => {
    expectValidation(await beacon({ events: [] }), 'body.events');
    expectValidation(await beacon({}), 'body.events', /required/);
  });

  it('an unknown event type names the allowed ones', async () => {
    expectValidation(await beacon({ events: [view, { type: 'click', product_id: 'p' }] }), 'body.events[1].type', /view.*ar_enter.*ar_session_ended/);
  });

  it('malformed fields', async () => {
    expectValidation(await beacon({ events: [{ type: 'view' }] }), 'body.events[0].product_id', /required/);
    expectValidation(await beacon({ events: [{ type: 'view', product_id: '' }] }), 'body.events[0].product_id');
    expectValidation(await beacon({ events: [{ ...view, occurred_at: 'yesterday' }] }), 'body.events[0].occurred_at');
    expectValidation(await beacon({ events: [{ ...view, duration_ms: -1 }] }), 'body.events[0].duration_ms');
    expectValidation(await beacon({ events: [{ ...view, duration_ms: '5' }] }), 'body.events[0].duration_ms');
    expectValidation(await beacon({ events: [{ ...view, colour: 'red' }] }), 'body.events[0].colour', /not a known field/);
    expectValidation(await beacon({ events: [view], extra: 1 }), 'body.extra');
  });

  it('a body that is not JSON: 400 invalid_request', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/beacon', headers: { ...bearer(key), 'content-type': 'application/json' }, payload: '{"events":[' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
  });

  it('a caller reaching several organizations must name one; one outside its reach is 404', async () => {
    const email = `errors-${Date.now()}@example.test`;
    await t.bootstrap({ email });
    await t.bootstrap({ email });
    const cookie = await sessionCookie(t.app, email, 'correct horse battery');
    const res = await beacon({ events: [view] }, { cookie });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('org_id_required');
    const outside = await beacon({ events: [view], org_id: t.org.org_id }, { cookie });
    expect(outside.statusCode).toBe(404);
    expect(outside.json().error.code).toBe('not_found');
  });

  it('events that cannot be stored are never acknowledged, and nothing of the batch is kept', async () => {
    const db = t.deps.database.db;
    const before = await storedEvents();
    await sql`alter table usage_daily rename to usage_daily_away`.execute(db);
    try {
      const res = await beacon({ events: [view, view] });
      expect(res.statusCode).toBe(500);
      expect(res.json().error.code).toBe('internal_error');
      // The raw rows were in the same transaction as the failed rollup.
      expect(await storedEvents()).toBe(before);
    } finally {
      await sql`alter table usage_daily_away rename to usage_daily`.execute(db);
    }
    expect((await beacon({ events: [view] })).statusCode).toBe(202);
    expect(await storedEvents()).toBe(before + 1);
  });
});

describe('GET /v1/usage: refused queries', () => {
  it('end must be after start', async () => {
    expectValidation(await usage('start=2030-01-02T00:00:00Z&end=2030-01-01T00:00:00Z'), 'query.end', /after start/);
    expectValidation(await usage('start=2030-01-02T00:00:00Z&end=2030-01-02T00:00:00Z'), 'query.end');
  });

  it('at most 366 days, and at most 31 days of hours', async () => {
    expect((await usage('start=2028-01-01T00:00:00Z&end=2029-01-01T00:00:00Z')).statusCode).toBe(200);
    expectValidation(await usage('start=2028-01-01T00:00:00Z&end=2029-01-01T00:00:01Z'), 'query.start', /366 days/);
    expect((await usage('granularity=hour&start=2030-01-01T00:00:00Z&end=2030-02-01T00:00:00Z')).statusCode).toBe(200);
    expectValidation(await usage('granularity=hour&start=2030-01-01T00:00:00Z&end=2030-02-01T01:00:00Z'), 'query.granularity', /31 days/);
    // The default window is 30 days, so hour granularity alone is fine.
    expect((await usage('granularity=hour')).json().buckets).toHaveLength(720);
  });

  it('malformed parameters', async () => {
    expectValidation(await usage('start=last-week'), 'query.start');
    // A leap second passes the format check but is no instant a Date can hold.
    expectValidation(await usage('start=2030-06-30T23:59:60Z'), 'query.start');
    expectValidation(await usage('granularity=minute'), 'query.granularity');
    expectValidation(await usage('event_type=click'), 'query.event_type[0]');
    expectValidation(await usage('include_internal=maybe'), 'query.include_internal');
    expectValidation(await usage('group_by=tag'), 'query.group_by');
    expectValidation(await usage('scope=everything'), 'query.scope');
    expectValidation(await usage('colour=red'), 'query.colour', /not a known field/);
  });

  it('a product outside reach is 404, like an unknown one', async () => {
    const other = await t.bootstrap();
    const theirs = await seedProduct(t, other.org_id);
    const a = await usage(`product_id=${theirs}`);
    const b = await usage('product_id=prod_00000000000000000000000000');
    for (const res of [a, b]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
    expect(a.json().error.message).toBe(b.json().error.message);
    // org_id bounds the search too: the caller's own product, asked under another org, is not found.
    const mine = await seedProduct(t, t.org.org_id);
    expect((await usage(`product_id=${mine}&org_id=${other.org_id}`)).statusCode).toBe(404);
    expect((await usage(`product_id=${mine}`)).statusCode).toBe(200);
  });

  it('several organizations: org_id required (or scope=all); product_id alone is enough', async () => {
    const email = `usage-errors-${Date.now()}@example.test`;
    const first = await t.bootstrap({ email });
    await t.bootstrap({ email });
    const product = await seedProduct(t, first.org_id);
    const cookie = await sessionCookie(t.app, email, 'correct horse battery');
    const res = await usage('', { cookie });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('org_id_required');
    expect((await usage('scope=all', { cookie })).statusCode).toBe(200);
    expect((await usage(`product_id=${product}`, { cookie })).statusCode).toBe(200);
    expect((await usage(`org_id=${t.org.org_id}`, { cookie })).statusCode).toBe(404);
  });
});
