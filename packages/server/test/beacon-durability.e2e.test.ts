import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BACKEND } from '../src/test/env.js';
import { ensureBuilt, freePort, freshEnv, spawnCli, startServe, tearDown } from './cli-harness.js';

/**
 * A 202 from POST /v1/beacon promises the events are stored. The real server is killed with
 * SIGKILL in the middle of a stream of beacons and restarted on the same data: every acknowledged
 * event must be counted. Events in flight at the kill may or may not be (they were never promised).
 */
const ORIGIN = 'https://shop.example';

beforeAll(() => ensureBuilt(['modules/analytics']), 180_000);

afterAll(tearDown, 30_000);

describe(`beacon durability across kill -9 (${TEST_BACKEND})`, { timeout: 90_000 }, () => {
  it('every event acknowledged with 202 is counted after a restart', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { ...(await freshEnv({ PLINTH_RATE_LIMITS: 'off' })), PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, LOG_LEVEL: 'warn' };

    const boot = spawnCli(['bootstrap', '--org', 'Durable', '--email', 'e@x.test', '--allowed-domain', ORIGIN, '--json'], env);
    expect((await boot.exited).code, boot.out.stderr).toBe(0);
    const keys = JSON.parse(boot.out.stdout) as { publishable_key: string; secret_key: string };

    const first = await startServe(env, { port, timeoutMs: 30_000 });
    let acknowledged = 0;
    let unanswered = 0;
    let killed = false;
    const sender = async (seed: number) => {
      for (let i = 0; !killed; i++) {
        const n = 1 + ((seed * 7 + i * 13) % 20);
        const events = Array.from({ length: n }, (_, k) => ({ type: k % 5 === 0 ? 'ar_enter' : 'view', product_id: `prod_${seed}_${k % 3}` }));
        try {
          const res = await fetch(`${url}/v1/beacon`, {
            method: 'POST',
            headers: { authorization: `Bearer ${keys.publishable_key}`, origin: ORIGIN, 'content-type': 'application/json' },
            body: JSON.stringify({ events }),
          });
          const body = await res.json();
          if (res.status !== 202) throw new Error(`beacon answered ${res.status}: ${JSON.stringify(body)}`);
          acknowledged += body.accepted;
        } catch (err) {
          if (!killed) throw err;
          // Sent, never answered: the server may or may not have committed it.
          unanswered += n;
          return;
        }
      }
    };
    const senders = Array.from({ length: 8 }, (_, i) => sender(i + 1));
    // Kill while beacons are flowing, well past the first transactions (a slow machine gets 15 s).
    const deadline = Date.now() + 15_000;
    while (acknowledged < 2_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    killed = true;
    first.proc.child.kill('SIGKILL');
    expect((await first.proc.exited).signal).toBe('SIGKILL');
    await Promise.all(senders);

    const second = await startServe(env, { port, timeoutMs: 30_000 });
    const res = await fetch(`${url}/v1/usage?include_internal=true`, { headers: { authorization: `Bearer ${keys.secret_key}` } });
    expect(res.status).toBe(200);
    const { totals } = await res.json();
    const counted = totals.view + totals.ar_enter + totals.ar_session_ended;
    console.log(`[beacon durability, ${TEST_BACKEND}] acknowledged ${acknowledged}, unanswered at the kill ${unanswered}, counted ${counted}`);
    expect(acknowledged).toBeGreaterThan(100);
    expect(counted).toBeGreaterThanOrEqual(acknowledged);
    expect(counted).toBeLessThanOrEqual(acknowledged + unanswered);

    second.proc.child.kill('SIGTERM');
    expect((await second.proc.exited).code).toBe(0);
  });
});
