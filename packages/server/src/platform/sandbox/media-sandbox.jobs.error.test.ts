import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boxDocument, glbBytes } from '@plinth/media/test-support';
import type { MediaOpName } from '@plinth/media';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { TEST_ALLOW } from '../../test/products.js';
import { createLogger } from '../../logger.js';
import { registerJobHandlers } from '../../worker.js';
import { childEntry, MediaSandbox, type MediaRunner } from './media-sandbox.js';

const entry = childEntry();
if (!entry) console.log('\n[plinth] media sandbox job test skipped: run `npm run build -w @plinth/media` first (it runs the compiled child).\n');

let t: TestApp;
let web: FixtureServer;
let sandbox: MediaSandbox;
const calls: { op: MediaOpName; outcome: string }[] = [];

/** The real sandbox, except that the first model import has its child killed (SIGKILL) while it works. */
function killingFirstImport(inner: MediaSandbox): MediaRunner {
  let killed = false;
  return {
    run(op, input, host) {
      const running = inner.run(op, input, host);
      if (op === 'model.process_buffer' && !killed) {
        killed = true;
        setImmediate(() => inner.pids().forEach((pid) => process.kill(pid, 'SIGKILL')));
      }
      running.then(
        () => calls.push({ op, outcome: 'ok' }),
        (err: { reason?: string }) => calls.push({ op, outcome: err.reason ?? 'error' }),
      );
      return running;
    },
    warmRenderer: (options) => inner.warmRenderer(options),
    close: () => inner.close(),
  };
}

beforeAll(async () => {
  if (!entry) return;
  web = await startFixtureServer();
  web.set('/box.glb', await glbBytes(boxDocument({ meshSize: [0.4, 0.3, 0.2] }).doc), 'model/gltf-binary');
  sandbox = new MediaSandbox(entry, { memoryMb: 1024, timeoutS: 120, stackKb: 2048, children: 2 }, createLogger('silent'));
  // Warm: the child is up and idle before the import starts, so the kill lands on real work.
  await sandbox.run('sandbox.probe', {});
  t = await createTestApp({ ...TEST_ALLOW, PLINTH_CHROMIUM_PATH: '/nonexistent/chromium' }, { media: killingFirstImport(sandbox) });
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
}, 120_000);

afterAll(async () => {
  await t?.close();
  await web?.close();
});

describe.skipIf(!entry)('a sandbox child killed mid-job', () => {
  it('fails that attempt with processing_limit; the next attempt runs in a fresh child and the model becomes ready', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { model_url: web.url('/box.glb') } });
    expect(res.statusCode).toBe(202);
    const product = await waitFor(async () => {
      const p = (await t.app.inject({ method: 'GET', url: `/v1/products/${res.json().id}`, headers: bearer(t.org.secret_key) })).json();
      return p.model_status === 'ready' || p.model_status === 'failed' ? p : undefined;
    }, 120_000, 'model');
    expect(product.model_status, JSON.stringify(product.error)).toBe('ready');
    expect(product.model.dimensions.width).toBeCloseTo(0.4, 3);
    const imports = calls.filter((c) => c.op === 'model.process_buffer').map((c) => c.outcome);
    expect(imports).toEqual(['processing_limit', 'ok']);
    // The API was never in danger: it answers as before.
    expect((await t.app.inject({ method: 'GET', url: '/v1/health' })).statusCode).toBe(200);
  }, 180_000);
});
