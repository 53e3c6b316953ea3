// Runs the real, built Plinth CLI in child processes, the way an operator would start it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnTracked, stopChild, tempDir, waitForHttp, waitForQuiet } from './processes.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = join(ROOT, 'packages/server/bin/plinth.js');
const DIST_ENTRY = join(ROOT, 'packages/server/dist/server.js');
const SRC = join(ROOT, 'packages/server/src');

function newestSourceMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMtime(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds when dist is missing. A stale dist is only reported, not rebuilt: others may be
 * mid-edit, and a benchmark should not silently measure a half-finished tree.
 */
export function ensureBuilt() {
  if (!existsSync(DIST_ENTRY)) {
    console.log('packages/server/dist is missing; running `npm run build` first.');
    try {
      execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    } catch {
      throw new Error('`npm run build` failed; fix the build, then run the benchmark again.');
    }
    if (!existsSync(DIST_ENTRY)) throw new Error(`build finished but ${DIST_ENTRY} is still missing`);
    return;
  }
  if (newestSourceMtime(SRC) > statSync(DIST_ENTRY).mtimeMs) {
    console.log('note: packages/server/src is newer than dist; run `npm run build` to measure the current code.');
  }
}

/** Environment a benchmark server runs with: no rate limits, quiet logs, its own data dir and port. */
function serverEnv(dataDir, port, extra) {
  const env = { ...process.env };
  // Inherited settings from the caller's shell (a DATABASE_URL, say) would change what is measured.
  for (const key of Object.keys(env)) {
    if (key.startsWith('PLINTH_') || ['DATABASE_URL', 'REDIS_URL', 'STORAGE_URL', 'PUBLIC_URL'].includes(key)) delete env[key];
  }
  return {
    ...env,
    PLINTH_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PLINTH_RATE_LIMITS: 'off',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Runs one CLI command to completion and returns its stdout; throws with stderr on a non-zero exit. */
export function runCli(args, env) {
  try {
    return execFileSync(process.execPath, [CLI, ...args], { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    throw new Error(`plinth ${args[0]} failed (exit ${err.status}):\n${err.stderr || err.message}`);
  }
}

function bootstrapArgs(opts) {
  const args = ['bootstrap', '--org', opts.org ?? 'Bench', '--email', opts.email ?? `bench-${Date.now()}@plinth.local`, '--json'];
  if (opts.password) args.push('--password', opts.password);
  if (opts.plan) args.push('--plan', opts.plan);
  if (opts.credits !== undefined) args.push('--credits', String(opts.credits));
  if (opts.activeProductCap !== undefined) args.push('--active-product-cap', String(opts.activeProductCap));
  for (const origin of opts.allowedDomains ?? []) args.push('--allowed-domain', origin);
  return args;
}

/**
 * Starts `plinth serve` on a free port with a fresh data dir and waits until /v1/health answers.
 *
 * options.bootstrap: bootstrap options ({ org, email, plan, credits, activeProductCap, allowedDomains });
 *   when given, the organization is created before the server starts, so no demo organization is made.
 * options.args: extra arguments to `serve` (e.g. ['--no-worker']).
 * options.env: extra environment (e.g. { PLINTH_RATE_LIMITS: 'on' } to measure the limiter).
 * options.nodeArgs: flags for the server's node (e.g. ['--cpu-prof', '--cpu-prof-dir=DIR'] to profile it).
 * options.settle: false to return as soon as /v1/health answers. By default it then waits (up to 90 s) until the
 *   server and its children are idle: the worker of `plinth serve` warms up in the background as it starts (a media
 *   sandbox, a Chromium with its lighting: 5 s of a core when idle, over 20 s beside a load test), and a
 *   measurement begun meanwhile would count that warm-up against the route it measures.
 *
 * Returns { url, port, pid, dataDir, env, keys, demoSecretKey, bootstrap(opts), stop() }; `keys` is the
 * bootstrap JSON ({ org_id, user_id, secret_key, project_id, publishable_key }) or null.
 */
export async function startPlinth(options = {}) {
  ensureBuilt();
  const dir = tempDir('plinth-bench-data-');
  const port = await freePort();
  const env = serverEnv(dir.path, port, options.env);
  const url = `http://127.0.0.1:${port}`;

  const keys = options.bootstrap ? JSON.parse(runCli(bootstrapArgs(options.bootstrap), env)) : null;

  let demoSecretKey = null;
  const server = spawnTracked(process.execPath, [...(options.nodeArgs ?? []), CLI, 'serve', ...(options.args ?? [])], {
    cwd: ROOT,
    env,
    label: 'plinth serve',
    onStdout: (text) => {
      demoSecretKey ??= /Secret key \(shown once\):\s+(sk_\S+)/.exec(text)?.[1] ?? null;
    },
  });
  const health = await waitForHttp(`${url}/v1/health`, server, options.startTimeoutMs ?? 60_000);
  if (health.status !== 200) throw new Error(`plinth serve is up but /v1/health answered ${health.status}`);
  if (options.settle !== false) {
    const waited = await waitForQuiet(server.child.pid);
    if (waited !== null && waited > 1.5) console.log(`plinth serve: idle ${waited.toFixed(1)} s after /v1/health first answered (its worker's warm-up)`);
  }

  return {
    url,
    port,
    pid: server.child.pid,
    dataDir: dir.path,
    env,
    keys,
    get demoSecretKey() {
      return demoSecretKey;
    },
    /** Another organization in the running server's database (SQLite is shared through the data dir). */
    bootstrap: (opts = {}) => JSON.parse(runCli(bootstrapArgs(opts), env)),
    output: server.output,
    async stop() {
      const status = await stopChild(server);
      dir.remove();
      return status;
    },
  };
}
