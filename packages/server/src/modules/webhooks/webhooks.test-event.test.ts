import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { registerWebhookJobs } from './webhooks.jobs.js';
import { startReceiver, type Receiver } from '../../test/webhook-receiver.js';
import { waitFor } from '../../test/wait.js';

let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  t = await createTestApp({ PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1', PLINTH_WEBHOOK_RETRY_SCALE: '0.001' });
  rx = await startReceiver();
  registerWebhookJobs(t.deps, { dispatchIntervalMs: 50, timeoutMs: 5_000 });
  await t.deps.jobs.start();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

const call = (key: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });

describe('POST /v1/webhooks/{id}/test', { timeout: 30_000 }, () => {
  it('delivers a signed webhook.test event to that endpoint only, and lists the delivery', async () => {
    const org = await t.bootstrap();
    const one = (await call(org.secret_key, 'POST', '/v1/webhooks', { url: rx.url('/one') })).json();
    const other = (await call(org.secret_key, 'POST', '/v1/webhooks', { url: rx.url('/other') })).json();
    const sent = await call(org.secret_key, 'POST', `/v1/webhooks/${one.id}/test`);
    expect(sent.statusCode, sent.body).toBe(202);
    expect(sent.json()).toMatchObject({ object: 'webhook_delivery', endpoint_id: one.id, event_type: 'webhook.test', status: 'pending' });
    const got = await waitFor('the test delivery', () => rx.of('/one')[0]);
    const event = new Webhook(one.secret).verify(got.body, got.headers as Record<string, string>) as { type: string; data: { object: { endpoint_id: string } } };
    expect(event.type).toBe('webhook.test');
    expect(event.data.object.endpoint_id).toBe(one.id);
    const listed = await waitFor('a succeeded delivery', async () => {
      const d = (await call(org.secret_key, 'GET', `/v1/webhooks/${one.id}/deliveries`)).json().data[0];
      return d?.status === 'succeeded' ? d : null;
    });
    expect(listed).toMatchObject({ event_type: 'webhook.test', last_response_status: 200, attempt_count: 1 });
    // The other endpoint of the organization subscribes to everything, and still gets nothing.
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.of('/other')).toHaveLength(0);
    expect((await call(org.secret_key, 'GET', `/v1/webhooks/${other.id}/deliveries`)).json().data).toHaveLength(0);
  });

  it("another organization's endpoint is 404; a disabled endpoint is 409; a read-only key is 403", async () => {
    const org = await t.bootstrap();
    const stranger = await t.bootstrap();
    const hook = (await call(org.secret_key, 'POST', '/v1/webhooks', { url: rx.url('/x'), enabled: false })).json();
    expect((await call(stranger.secret_key, 'POST', `/v1/webhooks/${hook.id}/test`)).statusCode).toBe(404);
    const disabled = await call(org.secret_key, 'POST', `/v1/webhooks/${hook.id}/test`);
    expect(disabled.statusCode).toBe(409);
    expect(disabled.json().error.details.reason).toBe('endpoint_disabled');
    const readOnly = (await call(org.secret_key, 'POST', '/v1/api_keys', { type: 'secret', scopes: ['products:read'] })).json().key;
    expect((await call(readOnly, 'POST', `/v1/webhooks/${hook.id}/test`)).statusCode).toBe(403);
  });
});
