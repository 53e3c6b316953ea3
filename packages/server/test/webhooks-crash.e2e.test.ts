import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../src/test/webhook-receiver.js';
import { waitFor } from '../src/test/wait.js';
import { TEST_BACKEND } from '../src/test/env.js';
import { ensureBuilt, freePort, freshEnv, spawnCli, startServe, tearDown } from './cli-harness.js';

/**
 * At least once, across a crash: the built `plinth serve` is SIGKILLed while a delivery is on the
 * wire, started again on the same data, and the event still arrives, under the same webhook-id.
 */

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  // The module as it is now, and wired into the app and the worker.
  await ensureBuilt(['modules/webhooks', 'app.ts', 'worker.ts']);
}, 180_000);

afterAll(async () => {
  await tearDown();
  await rx?.close();
}, 30_000);

describe(`webhooks survive kill -9 of the worker (${TEST_BACKEND})`, { timeout: 90_000 }, () => {
  it('the event hanging at the receiver when the process died is delivered after restart, same webhook-id', async () => {
    const env = await freshEnv({
      PLINTH_JOB_LEASE_SECONDS: '2',
      PLINTH_JOB_CONCURRENCY: '4',
      PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1',
      PLINTH_WEBHOOK_RETRY_SCALE: '0.001',
      PLINTH_RATE_LIMITS: 'off',
    });

    const boot = spawnCli(['bootstrap', '--org', 'Crash Co', '--email', 'crash@example.test', '--json'], env);
    expect((await boot.exited).code, boot.out.stderr).toBe(0);
    const keys = JSON.parse(boot.out.stdout) as { secret_key: string; org_id: string };
    const auth = { authorization: `Bearer ${keys.secret_key}`, 'content-type': 'application/json' };

    // The first delivery never gets an answer; the model URL fails fast so ingestion stays out of the way.
    rx.on('/crash', (n) => (n === 1 ? 'hang' : 200));
    rx.on('/model.glb', () => 404);

    const port = await freePort();
    const first = await startServe(env, { port, timeoutMs: 20_000 });
    const hookRes = await fetch(`${first.url}/v1/webhooks`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ url: rx.url('/crash'), events: ['product.created'] }),
    });
    expect(hookRes.status).toBe(201);
    const hook = (await hookRes.json()) as { id: string; secret: string };
    const product = await fetch(`${first.url}/v1/products`, { method: 'POST', headers: auth, body: JSON.stringify({ model_url: rx.url('/model.glb') }) });
    expect(product.status).toBe(202);
    const productId = ((await product.json()) as { id: string }).id;

    await waitFor('the first (hanging) delivery', () => rx.of('/crash').length === 1, 30_000);
    first.proc.child.kill('SIGKILL');
    expect(await first.proc.exited).toMatchObject({ signal: 'SIGKILL' });

    const second = await startServe(env, { port, timeoutMs: 20_000 });
    await waitFor('the delivery after restart', () => rx.of('/crash').length >= 2, 45_000);
    const [before, after] = rx.of('/crash');
    expect(after.headers['webhook-id']).toBe(before.headers['webhook-id']);
    expect(after.body).toBe(before.body);
    const wh = new Webhook(hook.secret);
    const event = wh.verify(after.body, after.headers) as { id: string; type: string; data: { object: { id: string } } };
    expect(() => wh.verify(before.body, before.headers)).not.toThrow();
    expect(event).toMatchObject({ id: after.headers['webhook-id'], type: 'product.created', data: { object: { id: productId } } });

    const log = await waitFor('the delivery to be recorded', async () => {
      const res = await fetch(`${second.url}/v1/webhooks/${hook.id}/deliveries`, { headers: auth });
      const d = ((await res.json()) as { data: any[] }).data[0];
      return d?.status === 'succeeded' ? d : null;
    });
    expect(log.event_id).toBe(event.id);
    expect(log.attempts.map((a: any) => a.error?.code ?? a.response_status)).toEqual(['interrupted', 200]);

    second.proc.child.kill('SIGTERM');
    await second.proc.exited;
  });
});
