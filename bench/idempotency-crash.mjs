// Kill -9 during idempotent creates: 120 model imports (POST /v1/products {model_url}), each with its own
// Idempotency-Key, while the server (API and its worker in one process) is killed with SIGKILL 3 times and
// restarted on the same data; every unanswered request is sent again with its key. The acceptance of DESIGN §17:
// 0 lost, 0 duplicates, and every product ready or failed with a reason within 90 s of the last answer. The job
// lease is the default one: what the killed process held comes back through its stale heartbeat. A correctness
// benchmark: the "baseline" is the promise itself, so it prints the counts, the settle time and the server's peak
// memory instead of a speed ratio.
//
//   npm run build && node bench/idempotency-crash.mjs
// BENCH_CREATES, BENCH_KILLS change 120 / 3; BENCH_DATABASE_URL runs it on PostgreSQL (a database of its own, e.g.
// one `createdb` made); BENCH_POSTERS=0 runs without Chromium, so imports skip their posters.
import { readFileSync } from 'node:fs';
import { runCrashCampaign } from '../packages/server/test/crash-campaign.mjs';
import { CLI, ROOT, ensureBuilt, runCli } from './lib/plinth.mjs';
import { freePort, spawnTracked, stopChild, tempDir, waitForHttp } from './lib/processes.mjs';
import { serveGlb } from './products-lib/glb.mjs';

const creates = Number(process.env.BENCH_CREATES ?? 120);
const kills = Number(process.env.BENCH_KILLS ?? 3);
const SETTLE_GOAL_MS = 90_000;

ensureBuilt();
const dir = tempDir('plinth-bench-crash-');
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const env = { ...process.env };
for (const k of Object.keys(env)) if (k.startsWith('PLINTH_') || ['DATABASE_URL', 'REDIS_URL', 'STORAGE_URL', 'PUBLIC_URL'].includes(k)) delete env[k];
Object.assign(env, {
  PLINTH_DATA_DIR: dir.path,
  PORT: String(port),
  HOST: '127.0.0.1',
  PUBLIC_URL: url,
  PLINTH_RATE_LIMITS: 'off',
  LOG_LEVEL: 'warn',
  PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1',
  ...(process.env.BENCH_POSTERS === '0' && { PLINTH_CHROMIUM_PATH: 'plinth-bench-no-chromium' }),
  ...(process.env.BENCH_DATABASE_URL && { DATABASE_URL: process.env.BENCH_DATABASE_URL }),
});
const keys = JSON.parse(runCli(['bootstrap', '--org', 'Crash bench', '--email', 'crash@bench.test', '--plan', 'active', '--json'], env));
const glb = await serveGlb();

let peakKb = 0;
let server = null;
const peak = () => {
  try {
    const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'));
    if (m) peakKb = Math.max(peakKb, Number(m[1]));
  } catch {
    // not Linux, or already gone
  }
};
const start = async () => {
  server = spawnTracked(process.execPath, [CLI, 'serve'], { cwd: ROOT, env, label: 'plinth serve' });
  await waitForHttp(`${url}/v1/health`, server, 60_000);
  const tracked = server;
  return {
    url,
    kill: async () => {
      peak();
      tracked.child.kill('SIGKILL');
      await tracked.exited;
    },
  };
};

const started = Date.now();
const { result } = await runCrashCampaign({ start, secretKey: keys.secret_key, modelUrl: glb.url, creates, kills, settleMs: 600_000, log: console.log });
peak();
const seconds = (Date.now() - started) / 1000;
console.log(JSON.stringify({ ...result, seconds, peak_rss_mb: Math.round(peakKb / 1024) }));
const settledInTime = result.settled_ms_after_last_answer !== null && result.settled_ms_after_last_answer <= SETTLE_GOAL_MS;
const ok = result.unexpected.length === 0 && result.lost === 0 && result.duplicates === 0 && result.left_busy === 0 && result.failed_without_reason === 0 && result.answered === creates;
console.log(`${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite'}, posters ${process.env.BENCH_POSTERS === '0' ? 'off' : 'on'}: ` +
  `every product ready or failed ${result.settled_ms_after_last_answer === null ? 'never' : `${(result.settled_ms_after_last_answer / 1000).toFixed(1)} s`} after the last answer (goal ≤ ${SETTLE_GOAL_MS / 1000} s: ${settledInTime ? 'met' : 'not met'})`);
console.log(ok ? `PASS: 0 lost, 0 duplicates, 0 left queued, ${result.failed} failed, each with its reason` : 'FAIL');
await stopChild(server);
await glb.close();
dir.remove();
process.exit(ok ? 0 : 1);
