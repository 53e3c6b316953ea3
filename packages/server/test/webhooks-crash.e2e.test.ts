import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, waitFor, type Receiver } from '../src/modules/webhooks/webhooks.receiver.test-support.js';
import { TEST_BACKEND, testEnv } from '../src/test/env.js';

/**
 * At least once, across a crash: the built `plinth serve` is SIGKILLed while a delivery is on the
 * wire, started again on the same data, and the event still arrives, under the same webhook-id.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'packages/server/bin/plinth.js');
const DIST = join(ROOT, 'packages/server/dist');
const WEBHOOKS_SRC = join(ROOT, 'packages/server/src/modules/webhooks');

const children = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void>> = [];

/** dist must hold this module as it is now, wired into the app and the worker. */
function distIsCurrent(): boolean {
  if (!existsSync(join(DIST, 'server.js'))) return false;
  if (!readFileSync(join(DIST, 'worker.js'), 'utf8').includes('registerWebhookJobs')) return false;
  if (!readFileSync(join(DIST, 'app.js'), 'utf8').includes('webhooksRoutes')) return false;
  return readdirSync(WEBHOOKS_SRC)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes('test-support'))
    .every((f) => {
      const out = join(DIST, 'modules/webhooks', f.replace(/\.ts$/, '.js'));
      return existsSync(out) && statSync(out).mtimeMs >= statSync(join(WEBHOOKS_SRC, f)).mtimeMs;
    });
}

/** Same lock as the CLI e2e test: only one vitest worker may run tsc into dist at a time. */
async function buildIfStale() {
  const lock = join(tmpdir(), 'plinth-cli-e2e-build.lock');
  while (!distIsCurrent()) {
    try {
      mkdirSync(lock);
    } catch {
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > 200_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      if (!distIsCurrent()) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe', timeout: 170_000 });
    } catch (err) {
      // tsc still emits when some other file has a type error; what matters is that dist is current.
      if (!distIsCurrent()) {
        const e = err as { stdout?: Buffer; stderr?: Buffer };
        throw new Error(`npm run build failed:\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function spawnCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (c: Buffer) => (out.stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out.stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, out, exited };
}

async function serve(env: Record<string, string>, port: number) {
  const url = `http://127.0.0.1:${port}`;
  const proc = spawnCli(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, LOG_LEVEL: 'info' });
  let gone: unknown = null;
  void proc.exited.then((e) => (gone = e));
  await waitFor('"plinth is serving"', () => {
    if (gone) throw new Error(`serve exited (${JSON.stringify(gone)}):\n${proc.out.stdout}\n${proc.out.stderr}`);
    return proc.out.stdout.includes('"msg":"plinth is serving"');
  });
  return { url, proc };
}

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  await buildIfStale();
}, 180_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const cleanup of cleanups) await cleanup();
  await rx?.close();
}, 30_000);

describe(`webhooks survive kill -9 of the worker (${TEST_BACKEND})`, { timeout: 90_000 }, () => {
  it('the event hanging at the receiver when the process died is delivered after restart, same webhook-id', async () => {
    const { env: base, cleanup } = await testEnv({
      PLINTH_JOB_LEASE_SECONDS: '2',
      PLINTH_JOB_CONCURRENCY: '4',
      PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1',
      PLINTH_WEBHOOK_RETRY_SCALE: '0.001',
      PLINTH_RATE_LIMITS: 'off',
    });
    cleanups.push(cleanup);
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('PLINTH_') && !['DATABASE_URL', 'REDIS_URL', 'STORAGE_URL', 'PUBLIC_URL', 'PORT', 'HOST'].includes(k)),
    ) as Record<string, string>;
    const env = { ...inherited, ...base };

    const boot = spawnCli(['bootstrap', '--org', 'Crash Co', '--email', 'crash@example.test', '--json'], env);
    expect((await boot.exited).code, boot.out.stderr).toBe(0);
    const keys = JSON.parse(boot.out.stdout) as { secret_key: string; org_id: string };
    const auth = { authorization: `Bearer ${keys.secret_key}`, 'content-type': 'application/json' };

    // The first delivery never gets an answer; the model URL fails fast so ingestion stays out of the way.
    rx.on('/crash', (n) => (n === 1 ? 'hang' : 200));
    rx.on('/model.glb', () => 404);

    const port = await freePort();
    const first = await serve(env, port);
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

    const second = await serve(env, port);
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
