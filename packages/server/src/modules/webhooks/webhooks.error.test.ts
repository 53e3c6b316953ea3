import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { TEST_BACKEND } from '../../test/env.js';
import { emitEvent } from '../events/events.js';
import { registerWebhookJobs } from './webhooks.jobs.js';
import { startReceiver, type Receiver } from '../../test/webhook-receiver.js';
import { waitFor } from '../../test/wait.js';
import { RETRY_SCHEDULE_SECONDS } from './webhooks.types.js';

// pg-boss polls every 500 ms at best, so on PostgreSQL the schedule is stretched to keep gaps measurable.
const SCALE = TEST_BACKEND === 'postgres' ? 0.004 : 0.001;
const TIMEOUT_MS = 500;

let t: TestApp;
let instant: TestApp;
let rx: Receiver;

beforeAll(async () => {
  rx = await startReceiver();
  t = await createTestApp({ PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1', PLINTH_WEBHOOK_RETRY_SCALE: String(SCALE) });
  registerWebhookJobs(t.deps, { dispatchIntervalMs: 50, timeoutMs: TIMEOUT_MS });
  await t.deps.jobs.start();
  // Scale 0: every retry is due at once, so the whole schedule runs out in a moment.
  instant = await createTestApp({ PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1', PLINTH_WEBHOOK_RETRY_SCALE: '0' });
  registerWebhookJobs(instant.deps, { dispatchIntervalMs: 50, timeoutMs: TIMEOUT_MS });
  await instant.deps.jobs.start();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await instant?.close();
  await rx?.close();
});

async function hook(app: TestApp, key: string, path: string, events = ['*']) {
  const res = await app.app.inject({ method: 'POST', url: '/v1/webhooks', headers: bearer(key), payload: { url: rx.url(path), events } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; secret: string };
}

async function onlyDelivery(app: TestApp, key: string, hookId: string) {
  const res = await app.app.inject({ method: 'GET', url: `/v1/webhooks/${hookId}/deliveries`, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data[0] as any;
}

const emit = (app: TestApp, orgId: string, productId: string, type: 'product.created' | 'product.updated' = 'product.updated') =>
  emitEvent(app.deps.database.db, orgId, type, { id: productId }, new Date().toISOString());

describe('retries', { timeout: 30_000 }, () => {
  it('500 three times then 200: four attempts with growing gaps, all four in the log', async () => {
    rx.on('/flaky', (n) => (n <= 3 ? 500 : 200));
    const h = await hook(t, t.org.secret_key, '/flaky');
    const eventId = await emit(t, t.org.org_id, 'prod_flaky');
    await waitFor('four attempts', () => rx.of('/flaky').length >= 4, 30_000);
    const reqs = rx.of('/flaky');
    expect(new Set(reqs.map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
    const gaps = [reqs[1].at - reqs[0].at, reqs[2].at - reqs[1].at, reqs[3].at - reqs[2].at];
    expect(gaps[1]).toBeGreaterThan(gaps[0]);
    expect(gaps[2]).toBeGreaterThan(gaps[1]);

    const d = await waitFor('the delivery to succeed', async () => {
      const got = await onlyDelivery(t, t.org.secret_key, h.id);
      return got.status === 'succeeded' ? got : null;
    });
    expect(d).toMatchObject({ event_id: eventId, attempt_count: 4, last_response_status: 200, failure_reason: null, next_attempt_at: null });
    expect(d.attempts.map((a: any) => [a.attempt, a.response_status, a.error?.code ?? null])).toEqual([
      [1, 500, 'http_status'],
      [2, 500, 'http_status'],
      [3, 500, 'http_status'],
      [4, 200, null],
    ]);
    d.attempts.slice(0, 3).forEach((a: any, i: number) => {
      const wait = Date.parse(a.next_attempt_at) - Date.parse(a.finished_at);
      expect(wait).toBeGreaterThanOrEqual(Math.floor(RETRY_SCHEDULE_SECONDS[i] * SCALE * 1000) - 1);
      expect(wait).toBeLessThanOrEqual(Math.ceil(RETRY_SCHEDULE_SECONDS[i] * SCALE * 1000 * 1.1) + 1);
      expect(Date.parse(d.attempts[i + 1].started_at)).toBeGreaterThanOrEqual(Date.parse(a.next_attempt_at));
    });
    expect(d.attempts[3].next_attempt_at).toBeNull();
  });

  it('a failing event holds back later events of the same product only until it succeeds', async () => {
    let createdSeen = 0;
    rx.on('/order', (_n, req) => (JSON.parse(req.body).type === 'product.created' && ++createdSeen <= 2 ? 500 : 200));
    await hook(t, t.org.secret_key, '/order');
    const first = await emit(t, t.org.org_id, 'prod_ordered', 'product.created');
    const second = await emit(t, t.org.org_id, 'prod_ordered', 'product.updated');
    await waitFor('both events', () => rx.of('/order').some((r) => r.headers['webhook-id'] === second), 30_000);
    expect(rx.of('/order').map((r) => r.headers['webhook-id'])).toEqual([first, first, first, second]);
  });

  it('every retry used up: the delivery is failed; retry sends it once more, with the same webhook-id', async () => {
    let up = false;
    rx.on('/down', () => (up ? 200 : 500));
    const h = await hook(instant, instant.org.secret_key, '/down');
    const eventId = await emit(instant, instant.org.org_id, 'prod_down');
    const failed = await waitFor('the delivery to fail', async () => {
      const got = await onlyDelivery(instant, instant.org.secret_key, h.id);
      return got?.status === 'failed' ? got : null;
    });
    expect(failed).toMatchObject({ failure_reason: 'attempts_exhausted', attempt_count: RETRY_SCHEDULE_SECONDS.length + 1, next_attempt_at: null });
    expect(failed.attempts).toHaveLength(8);
    expect(failed.attempts.slice(0, 7).every((a: any) => a.next_attempt_at !== null)).toBe(true);
    expect(failed.attempts[7].next_attempt_at).toBeNull();

    up = true;
    const retry = await instant.app.inject({ method: 'POST', url: `/v1/webhooks/${h.id}/deliveries/${failed.id}/retry`, headers: bearer(instant.org.secret_key) });
    expect(retry.statusCode, retry.body).toBe(202);
    expect(retry.json()).toMatchObject({ id: failed.id, status: 'pending', failure_reason: null });
    const done = await waitFor('the retried delivery to succeed', async () => {
      const got = await onlyDelivery(instant, instant.org.secret_key, h.id);
      return got.status === 'succeeded' ? got : null;
    });
    expect(done.attempt_count).toBe(9);
    expect(done.attempts[8]).toMatchObject({ attempt: 9, response_status: 200 });
    expect(new Set(rx.of('/down').map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
  });
});

describe('410, timeouts, disabled endpoints', { timeout: 30_000 }, () => {
  it('410 disables the endpoint after one attempt; nothing more is sent; retry answers 409', async () => {
    rx.on('/gone', () => 410);
    const h = await hook(t, t.org.secret_key, '/gone');
    await emit(t, t.org.org_id, 'prod_gone_1');
    const endpoint = await waitFor('the endpoint to be disabled', async () => {
      const got = (await t.app.inject({ method: 'GET', url: `/v1/webhooks/${h.id}`, headers: bearer(t.org.secret_key) })).json();
      return got.enabled === false ? got : null;
    });
    expect(endpoint.disabled_reason).toBe('gone');
    const d = await onlyDelivery(t, t.org.secret_key, h.id);
    expect(d).toMatchObject({ status: 'failed', failure_reason: 'endpoint_gone', attempt_count: 1, last_response_status: 410 });

    await emit(t, t.org.org_id, 'prod_gone_2');
    await new Promise((r) => setTimeout(r, 600));
    expect(rx.of('/gone')).toHaveLength(1);
    const retry = await t.app.inject({ method: 'POST', url: `/v1/webhooks/${h.id}/deliveries/${d.id}/retry`, headers: bearer(t.org.secret_key) });
    expect(retry.statusCode).toBe(409);
    expect(retry.json().error).toMatchObject({ code: 'conflict', details: { reason: 'endpoint_disabled' } });

    // Enabling again clears the reason and resumes with new events.
    const enabled = await t.app.inject({ method: 'PATCH', url: `/v1/webhooks/${h.id}`, headers: bearer(t.org.secret_key), payload: { enabled: true } });
    expect(enabled.json()).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it('a receiver that never answers is cut at the timeout and retried', async () => {
    rx.on('/hang', () => 'hang');
    const h = await hook(t, t.org.secret_key, '/hang');
    await emit(t, t.org.org_id, 'prod_hang');
    const d = await waitFor('the timed-out attempt', async () => {
      const got = await onlyDelivery(t, t.org.secret_key, h.id);
      return got?.attempts[0]?.finished_at ? got : null;
    });
    expect(d.status).toBe('pending');
    expect(d.attempts[0]).toMatchObject({ attempt: 1, response_status: null, error: { code: 'timeout' } });
    expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(d.attempts[0].next_attempt_at).not.toBeNull();

    // Disabling ends what is pending.
    const off = await t.app.inject({ method: 'PATCH', url: `/v1/webhooks/${h.id}`, headers: bearer(t.org.secret_key), payload: { enabled: false } });
    expect(off.json()).toMatchObject({ enabled: false, disabled_reason: null });
    const after = await onlyDelivery(t, t.org.secret_key, h.id);
    expect(after).toMatchObject({ status: 'failed', failure_reason: 'endpoint_disabled', next_attempt_at: null });
  });
});

describe('validation', { timeout: 30_000 }, () => {
  const post = (payload: object) => t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: bearer(t.org.secret_key), payload });
  const paths = (res: { json(): any }) => res.json().error.details.errors.map((e: any) => e.path);

  it('refuses bodies that do not describe an endpoint (422 with the field)', async () => {
    const cases: [object, string][] = [
      [{}, 'body.url'],
      [{ url: 'https://93.184.216.34/x', events: ['product.exploded'] }, 'body.events[0]'],
      [{ url: 'https://93.184.216.34/x', events: [] }, 'body.events'],
      [{ url: 'https://93.184.216.34/x', colour: 'red' }, 'body.colour'],
      [{ url: 'ftp://93.184.216.34/x' }, 'body.url'],
      [{ url: 'not a url' }, 'body.url'],
      [{ url: 'http://93.184.216.34/x' }, 'body.url'],
      [{ url: 'https://93.184.216.34/x', enabled: 'yes' }, 'body.enabled'],
    ];
    for (const [payload, path] of cases) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.json().error.code).toBe('validation_failed');
      expect(paths(res), JSON.stringify(payload)).toContain(path);
    }
    expect((await post({ url: 'http://93.184.216.34/x' })).json().error.details.errors[0].message).toBe('must use https');
  });

  it('accepts http for a host in PLINTH_FETCH_ALLOW_HOSTS', async () => {
    const res = await post({ url: 'http://127.0.0.1:9/local', enabled: false });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('PATCH needs at least one field; unknown ids and delivery ids are 404; a bad status filter is 422', async () => {
    const h = await hook(t, t.org.secret_key, '/validation');
    const empty = await t.app.inject({ method: 'PATCH', url: `/v1/webhooks/${h.id}`, headers: bearer(t.org.secret_key), payload: {} });
    expect(empty.statusCode).toBe(422);
    const badUrl = await t.app.inject({ method: 'PATCH', url: `/v1/webhooks/${h.id}`, headers: bearer(t.org.secret_key), payload: { url: 'http://93.184.216.34/' } });
    expect(badUrl.statusCode).toBe(422);
    const retry = await t.app.inject({ method: 'POST', url: `/v1/webhooks/${h.id}/deliveries/whd_unknown/retry`, headers: bearer(t.org.secret_key) });
    expect(retry.statusCode).toBe(404);
    const filter = await t.app.inject({ method: 'GET', url: `/v1/webhooks/${h.id}/deliveries?status=bogus`, headers: bearer(t.org.secret_key) });
    expect(filter.statusCode).toBe(422);
  });
});
