import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { createFetcher } from '../../platform/fetch/index.js';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { authMatrix } from '../../test/auth-matrix.js';
import { emitEvent } from '../events/events.js';
import { dispatchPending } from './dispatch.service.js';
import { registerWebhookJobs } from './webhooks.jobs.js';
import { startReceiver, type Receiver } from '../../test/webhook-receiver.js';
import { waitFor } from '../../test/wait.js';

const unknownHook = 'wh_00000000000000000000000000';

/** An endpoint (never delivered to: disabled after its delivery exists) with one delivery row. */
async function seedHook(t: TestApp, key: string, orgId: string) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: bearer(key), payload: { url: 'https://93.184.216.34/hook' } });
  const hookId = res.json().id as string;
  await emitEvent(t.deps.database.db, orgId, 'product.updated', { id: 'prod_matrix' }, new Date().toISOString());
  await dispatchPending(t.deps);
  const delivery = await t.deps.database.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', hookId).executeTakeFirstOrThrow();
  return { hookId, deliveryId: delivery.id };
}

const byId = (method: 'GET' | 'PATCH' | 'DELETE' | 'POST', suffix = '', payload?: object) => ({
  setup: seedHook,
  request: (c: { ids: Record<string, string> }) => ({ method, url: `/v1/webhooks/${c.ids.hookId}${suffix}`, ...(payload && { payload }) }),
  otherOrg: (c: { idsB: Record<string, string> }) => ({ method, url: `/v1/webhooks/${c.idsB.hookId}${suffix}`, ...(payload && { payload }) }),
  unknownId: () => ({ method, url: `/v1/webhooks/${unknownHook}${suffix}`, ...(payload && { payload }) }),
});

authMatrix('webhooks', [
  { name: 'GET /v1/webhooks', scope: 'webhooks:manage', request: () => ({ method: 'GET', url: '/v1/webhooks' }) },
  { name: 'POST /v1/webhooks', scope: 'webhooks:manage', request: () => ({ method: 'POST', url: '/v1/webhooks', payload: { url: 'https://93.184.216.34/h' } }) },
  { name: 'GET /v1/webhooks/:id', scope: 'webhooks:manage', ...byId('GET') },
  { name: 'PATCH /v1/webhooks/:id', scope: 'webhooks:manage', ...byId('PATCH', '', { description: 'x' }) },
  { name: 'DELETE /v1/webhooks/:id', scope: 'webhooks:manage', ...byId('DELETE') },
  { name: 'POST /v1/webhooks/:id/rotate_secret', scope: 'webhooks:manage', ...byId('POST', '/rotate_secret') },
  { name: 'GET /v1/webhooks/:id/deliveries', scope: 'webhooks:manage', ...byId('GET', '/deliveries') },
  {
    name: 'POST /v1/webhooks/:id/deliveries/:delivery_id/retry',
    scope: 'webhooks:manage',
    setup: seedHook,
    request: (c) => ({ method: 'POST', url: `/v1/webhooks/${c.ids.hookId}/deliveries/${c.ids.deliveryId}/retry` }),
    // B's delivery under B's endpoint, and B's delivery under A's own endpoint: both read as unknown.
    otherOrg: (c) => ({ method: 'POST', url: `/v1/webhooks/${c.ids.hookId}/deliveries/${c.idsB.deliveryId}/retry` }),
    unknownId: (c) => ({ method: 'POST', url: `/v1/webhooks/${c.ids.hookId}/deliveries/whd_00000000000000000000000000/retry` }),
  },
]);

describe('webhooks: addresses the service must never call', { timeout: 30_000 }, () => {
  let t: TestApp;
  let rx: Receiver;
  /** what the injected DNS answers for every name; changed by the tests */
  let answer = '93.184.216.34';

  beforeAll(async () => {
    rx = await startReceiver();
    // 127.0.0.1 is allowed only for the receiver; names resolve through the injected lookup.
    const fetcherConfig = loadConfig({ PLINTH_SECRET: 'test-secret-0123456789abcdef', PLINTH_DATA_DIR: '/nonexistent', PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1' });
    const fetcher = createFetcher(fetcherConfig, { lookup: async () => [{ address: answer, family: answer.includes(':') ? 6 : 4 }] });
    t = await createTestApp({ PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1', PLINTH_WEBHOOK_RETRY_SCALE: '100' }, { fetcher });
    registerWebhookJobs(t.deps, { dispatchIntervalMs: 50, timeoutMs: 2000 });
    await t.deps.jobs.start();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  const create = (url: string) => t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: bearer(t.org.secret_key), payload: { url } });

  it('refuses private, loopback, link-local and metadata addresses at create (422)', async () => {
    for (const url of [
      'https://10.0.0.5/hook',
      'https://192.168.1.1/hook',
      'https://127.0.0.2/hook',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::1]/hook',
      'https://[fd00::1]/hook',
      'https://[::ffff:169.254.169.254]/hook',
      'https://0.0.0.0/hook',
    ]) {
      const res = await create(url);
      expect(res.statusCode, url).toBe(422);
      expect(res.json().error.details.errors).toEqual([{ path: 'body.url', message: 'points at a private, loopback, link-local or metadata address' }]);
    }
    answer = '169.254.169.254';
    const named = await create('https://metadata.internal.test/computeMetadata/v1/');
    expect(named.statusCode).toBe(422);
    answer = '10.1.2.3';
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${(await seedAt('https://93.184.216.34/ok')).id}`,
      headers: bearer(t.org.secret_key),
      payload: { url: 'https://intranet.test/hook' },
    });
    expect(patched.statusCode).toBe(422);
    answer = '93.184.216.34';
  });

  async function seedAt(url: string) {
    const res = await create(url);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string };
  }

  it('a name that resolved publicly at create and privately later is refused at delivery', async () => {
    answer = '93.184.216.34';
    const hook = await seedAt('https://hooks.rebinding.test/events');
    answer = '169.254.169.254';
    await emitEvent(t.deps.database.db, t.org.org_id, 'product.updated', { id: 'prod_rebind' }, new Date().toISOString());
    const d = await waitFor('the refused attempt', async () => {
      const res = await t.app.inject({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries`, headers: bearer(t.org.secret_key) });
      const got = res.json().data[0];
      return got?.attempts[0]?.finished_at ? got : null;
    });
    expect(d.attempts[0]).toMatchObject({ response_status: null, error: { code: 'blocked_address' } });
    expect(d.attempts[0].error.message).toContain('169.254.169.254');
    expect(d.status).toBe('pending'); // retried later, refused again while DNS says so
  });

  it("an endpoint receives its own organization's events only", async () => {
    const other = await t.bootstrap();
    const mine = await seedAt(rx.url('/mine'));
    const theirs = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: bearer(other.secret_key), payload: { url: rx.url('/theirs') } });
    expect(theirs.statusCode).toBe(201);
    await emitEvent(t.deps.database.db, other.org_id, 'product.updated', { id: 'prod_theirs' }, new Date().toISOString());
    await emitEvent(t.deps.database.db, t.org.org_id, 'product.updated', { id: 'prod_mine' }, new Date().toISOString());
    await waitFor('both deliveries', () => rx.of('/mine').length >= 1 && rx.of('/theirs').length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.of('/mine').map((r) => JSON.parse(r.body).data.object.id)).toEqual(['prod_mine']);
    expect(rx.of('/theirs').map((r) => JSON.parse(r.body).data.object.id)).toEqual(['prod_theirs']);
    expect(mine.id).toMatch(/^wh_/);
  });

  it('a key scoped to webhooks:manage (or its alias) manages webhooks and nothing else', async () => {
    const make = async (scopes: string[]) =>
      (await t.app.inject({ method: 'POST', url: '/v1/api_keys', headers: bearer(t.org.secret_key), payload: { scopes } })).json().key as string;
    for (const scope of ['webhooks:manage', 'webhooks:manageWebhook']) {
      const key = await make([scope]);
      expect((await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: bearer(key) })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/v1/products', headers: bearer(key) })).statusCode).toBe(403);
    }
  });
});
