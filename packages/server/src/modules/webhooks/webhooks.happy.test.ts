import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';
import { emitEvent } from '../events/events.js';
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

const api = (key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });

async function createHook(key: string, body: Record<string, unknown>) {
  const res = await api(key, 'POST', '/v1/webhooks', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; secret: string } & Record<string, any>;
}

async function deliveries(key: string, hookId: string, query = '') {
  const res = await api(key, 'GET', `/v1/webhooks/${hookId}/deliveries?limit=100${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as any[];
}

describe('webhook endpoints: create, read, update, rotate, delete', { timeout: 30_000 }, () => {
  it('create answers 201 with the secret once; reads never show it', async () => {
    const org = await t.bootstrap();
    const created = await createHook(org.secret_key, { url: 'https://93.184.216.34/hooks', description: 'shop sync', events: ['product.created', 'product.deleted'], enabled: false });
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      org_id: org.org_id,
      url: 'https://93.184.216.34/hooks',
      description: 'shop sync',
      events: ['product.created', 'product.deleted'],
      enabled: false,
      disabled_reason: null,
    });
    expect(created.id).toMatch(/^wh_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);

    const got = await api(org.secret_key, 'GET', `/v1/webhooks/${created.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual({ ...created, secret: undefined });
    expect(got.body).not.toContain('whsec_');

    const list = await api(org.secret_key, 'GET', '/v1/webhooks');
    expect(list.json()).toMatchObject({ object: 'list', total: 1, limit: 20, offset: 0 });
    expect(list.json().data[0].id).toBe(created.id);
    expect(list.body).not.toContain('whsec_');
  });

  it('events default to ["*"]; "*" absorbs other types; PATCH changes fields and keeps the rest', async () => {
    const org = await t.bootstrap();
    const a = await createHook(org.secret_key, { url: 'https://93.184.216.34/a', enabled: false });
    expect(a.events).toEqual(['*']);
    const b = await createHook(org.secret_key, { url: 'https://93.184.216.34/b', events: ['product.created', '*'], enabled: false });
    expect(b.events).toEqual(['*']);

    const patched = await api(org.secret_key, 'PATCH', `/v1/webhooks/${a.id}`, { description: 'renamed', events: ['export.ready'] });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ id: a.id, description: 'renamed', events: ['export.ready'], url: a.url, enabled: false });
    expect(patched.json().updated_at >= a.updated_at).toBe(true);

    const list = await api(org.secret_key, 'GET', '/v1/webhooks?limit=1');
    expect(list.json().total).toBe(2);
    expect(list.json().data.map((e: any) => e.id)).toEqual([b.id]); // newest first
  });

  it('rotate_secret answers a new secret; for 24 h deliveries carry a signature for each secret', async () => {
    const org = await t.bootstrap();
    const hook = await createHook(org.secret_key, { url: rx.url('/rotate'), events: ['product.updated'] });
    const rotated = await api(org.secret_key, 'POST', `/v1/webhooks/${hook.id}/rotate_secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const r = rotated.json();
    expect(r.secret).toMatch(/^whsec_/);
    expect(r.secret).not.toBe(hook.secret);
    expect(Date.parse(r.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);

    await emitEvent(t.deps.database.db, org.org_id, 'product.updated', { id: 'prod_rotation' }, new Date().toISOString());
    const [req] = await waitFor('the delivery after rotation', () => (rx.of('/rotate').length ? rx.of('/rotate') : null));
    expect(req.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(r.secret).verify(req.body, req.headers)).not.toThrow();
    expect(() => new Webhook(hook.secret).verify(req.body, req.headers)).not.toThrow();
  });

  it('DELETE removes the endpoint; it then reads as 404', async () => {
    const org = await t.bootstrap();
    const hook = await createHook(org.secret_key, { url: 'https://93.184.216.34/gone', enabled: false });
    const del = await api(org.secret_key, 'DELETE', `/v1/webhooks/${hook.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ object: 'webhook_endpoint', id: hook.id, deleted: true });
    expect((await api(org.secret_key, 'GET', `/v1/webhooks/${hook.id}`)).statusCode).toBe(404);
    expect((await api(org.secret_key, 'GET', `/v1/webhooks/${hook.id}/deliveries`)).statusCode).toBe(404);
  });
});

describe('delivery: every event, signed, once per subscribed endpoint, in order per product', { timeout: 30_000 }, () => {
  it('create, model ready, publish, update and delete reach each subscribed endpoint in creation order', async () => {
    const org = await t.bootstrap();
    const key = org.secret_key;
    const all = await createHook(key, { url: rx.url('/all') });
    const all2 = await createHook(key, { url: rx.url('/all2'), events: ['*'] });
    const pub = await createHook(key, { url: rx.url('/pub'), events: ['product.published'] });
    const secrets: Record<string, string> = { '/all': all.secret, '/all2': all2.secret, '/pub': pub.secret };

    const imported = await api(key, 'POST', '/v1/products', { model_url: 'https://93.184.216.34/chair.glb', title: 'Chair' });
    expect(imported.statusCode, imported.body).toBe(202);
    const a = imported.json().id as string;
    const b = await seedProduct(t, org.org_id, { title: 'Lamp' });
    // The model pipeline is not part of this test; its event goes through the same outbox function.
    await emitEvent(t.deps.database.db, org.org_id, 'product.model.ready', { id: b, triangles: 12 }, new Date().toISOString());
    expect((await api(key, 'POST', '/v1/products/publish', { ids: [b] })).json().updated).toEqual([b]);
    expect((await api(key, 'PATCH', `/v1/products/${b}`, { title: 'Desk lamp' })).statusCode).toBe(200);
    expect((await api(key, 'PATCH', `/v1/products/${a}`, { title: 'Arm chair' })).statusCode).toBe(200);
    expect((await api(key, 'DELETE', `/v1/products/${b}`)).statusCode).toBe(200);

    const events = await t.deps.database.db.selectFrom('events').select(['id', 'type', 'data']).where('org_id', '=', org.org_id).orderBy('seq').execute();
    expect(events.map((e) => e.type)).toEqual(['product.created', 'product.model.ready', 'product.published', 'product.updated', 'product.updated', 'product.deleted']);

    await waitFor('all deliveries', () => rx.of('/all').length >= 6 && rx.of('/all2').length >= 6 && rx.of('/pub').length >= 1);
    await waitFor('deliveries recorded as succeeded', async () => (await deliveries(key, all.id, '&status=succeeded')).length === 6);
    await new Promise((r) => setTimeout(r, 300)); // would-be duplicates get the chance to show up

    for (const path of ['/all', '/all2', '/pub']) {
      const got = rx.of(path);
      for (const req of got) {
        const verified = new Webhook(secrets[path]).verify(req.body, req.headers) as { id: string };
        expect(req.headers['webhook-id']).toBe(verified.id);
        expect(req.headers['content-type']).toBe('application/json');
      }
      const ids = got.map((r) => JSON.parse(r.body).id);
      expect(new Set(ids).size, `${path} got an event twice`).toBe(ids.length);
      // Per product, the order of arrival is the order of creation.
      for (const product of [a, b]) {
        const sent = events.filter((e) => JSON.parse(e.data).object.id === product).map((e) => e.id);
        const arrived = got.filter((r) => JSON.parse(r.body).data.object.id === product).map((r) => JSON.parse(r.body).id);
        expect(arrived).toEqual(path === '/pub' ? sent.filter((id) => events.find((e) => e.id === id)!.type === 'product.published') : sent);
      }
    }
    expect(rx.of('/pub').map((r) => JSON.parse(r.body).type)).toEqual(['product.published']);

    // Different products travel independently, so look the first event up rather than taking the first arrival.
    const body = JSON.parse(rx.of('/all').find((r) => JSON.parse(r.body).id === events[0].id)!.body);
    expect(Object.keys(body)).toEqual(['id', 'type', 'created_at', 'org_id', 'data']);
    expect(body).toMatchObject({ id: events[0].id, type: 'product.created', org_id: org.org_id, data: { object: { id: a } } });
    expect(body.id).toMatch(/^evt_/);

    const log = await deliveries(key, all.id);
    expect(log).toHaveLength(6);
    expect(log.map((d) => d.event_id)).toEqual(events.map((e) => e.id).reverse()); // newest first
    for (const d of log) {
      expect(d).toMatchObject({ object: 'webhook_delivery', endpoint_id: all.id, status: 'succeeded', attempt_count: 1, last_response_status: 200, next_attempt_at: null });
      expect(d.id).toMatch(/^whd_/);
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ attempt: 1, response_status: 200, error: null, next_attempt_at: null });
      expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
    }
    expect(await deliveries(key, all.id, '&status=failed&status=pending')).toEqual([]);
  });

  it('a tampered body, a foreign secret or an old timestamp fails verification', async () => {
    const org = await t.bootstrap();
    const hook = await createHook(org.secret_key, { url: rx.url('/tamper') });
    await emitEvent(t.deps.database.db, org.org_id, 'export.ready', { id: 'exp_1', url: 'https://x.example/e.zip' }, new Date().toISOString());
    const [req] = await waitFor('the delivery', () => (rx.of('/tamper').length ? rx.of('/tamper') : null));
    const wh = new Webhook(hook.secret);
    expect(wh.verify(req.body, req.headers)).toMatchObject({ type: 'export.ready' });
    expect(() => wh.verify(req.body.replace('exp_1', 'exp_2'), req.headers)).toThrow();
    expect(() => wh.verify(req.body + ' ', req.headers)).toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(req.body, req.headers)).toThrow();
    expect(() => wh.verify(req.body, { ...req.headers, 'webhook-id': 'evt_other' })).toThrow();
    expect(() => wh.verify(req.body, { ...req.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) })).toThrow();
  });

  it('an endpoint created after an event does not receive it', async () => {
    const org = await t.bootstrap();
    await emitEvent(t.deps.database.db, org.org_id, 'product.updated', { id: 'prod_history' }, new Date(Date.now() - 1000).toISOString());
    const hook = await createHook(org.secret_key, { url: rx.url('/late') });
    await emitEvent(t.deps.database.db, org.org_id, 'product.updated', { id: 'prod_new' }, new Date().toISOString());
    await waitFor('the new event', () => rx.of('/late').length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.of('/late').map((r) => JSON.parse(r.body).data.object.id)).toEqual(['prod_new']);
    expect(await deliveries(org.secret_key, hook.id)).toHaveLength(1);
  });
});
