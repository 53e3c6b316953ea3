import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BACKEND } from '../src/test/env.js';
import { startFixtureServer, type FixtureServer } from '../src/test/fixture-server.js';
import { glbBytes, boxDocument } from '@plinth/media/test-support';
import { runCrashCampaign } from './crash-campaign.mjs';
import { ensureBuilt, freePort, freshEnv, spawnCli, startServe, tearDown, type Served } from './cli-harness.js';

/**
 * An acknowledged create must never be lost and a retried one never repeated, however the server
 * dies: the idempotency record is written in the transaction that makes the product. The real server
 * is killed with SIGKILL while idempotent imports are in flight; unanswered ones are retried with
 * their key after each restart. (bench/idempotency-crash.mjs runs the full 300 creates and 5 kills.)
 */
let web: FixtureServer;
beforeAll(async () => {
  await ensureBuilt(['http', 'modules/products', 'modules/ingest', 'platform/db', 'platform/jobs']);
  web = await startFixtureServer();
  web.set('/box.glb', await glbBytes(boxDocument({ meshSize: [0.3, 0.2, 0.1] }).doc), 'model/gltf-binary');
}, 180_000);

afterAll(async () => {
  await tearDown();
  await web?.close();
}, 30_000);

describe(`idempotent creates across kill -9 (${TEST_BACKEND})`, { timeout: 300_000 }, () => {
  it('0 lost, 0 duplicates, 0 products left queued', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      ...(await freshEnv({
        PLINTH_RATE_LIMITS: 'off',
        PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1',
        PLINTH_JOB_LEASE_SECONDS: '10',
        // A Chromium poster per import would make the catch-up minutes long; imports succeed without one.
        PLINTH_CHROMIUM_PATH: 'plinth-test-no-chromium',
      })),
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      LOG_LEVEL: 'warn',
    };
    const boot = spawnCli(['bootstrap', '--org', 'Crash', '--email', 'crash@x.test', '--plan', 'active', '--json'], env);
    expect((await boot.exited).code, boot.out.stderr).toBe(0);
    const keys = JSON.parse(boot.out.stdout) as { secret_key: string };

    let current: Served | null = null;
    const start = async () => {
      current = await startServe(env, { port, timeoutMs: 30_000 });
      const proc = current.proc;
      return {
        url,
        kill: async () => {
          proc.child.kill('SIGKILL');
          await proc.exited;
        },
      };
    };
    const { result } = await runCrashCampaign({
      start,
      secretKey: keys.secret_key,
      modelUrl: web.url('/box.glb'),
      creates: 60,
      kills: 3,
      settleMs: 120_000,
      log: (line) => console.log(`[idempotency crash, ${TEST_BACKEND}] ${line}`),
    });
    console.log(`[idempotency crash, ${TEST_BACKEND}] ${JSON.stringify(result)}`);
    expect(result.unexpected).toEqual([]);
    expect(result.answered).toBe(60);
    expect(result.products).toBe(60);
    expect(result.lost).toBe(0);
    expect(result.duplicates).toBe(0);
    expect(result.left_busy).toBe(0);
    expect(result.failed_without_reason).toBe(0);
    await current!.stop();
  });
});
