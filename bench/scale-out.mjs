#!/usr/bin/env node
// Scale-out under load and faults: two `plinth serve --no-worker` processes behind a round-robin proxy and two
// `plinth worker` processes, sharing PostgreSQL, Redis and an S3 server (s3rver) on loopback. A mixed load runs for
// BENCH_SCALE_SECONDS (default 180): creates with generation, model imports, publishable reads, beacons, exports and
// webhook deliveries to a loopback receiver. During it, one worker is killed with SIGKILL in the middle of a
// generation, one API process in the middle of requests (both restarted), and PostgreSQL is restarted once
// (BENCH_RESTART_POSTGRES=0 skips that). Then it checks, and exits non-zero when a check fails:
//   every acknowledged create exists exactly once, and its generation finished exactly once;
//   every acknowledged beacon is counted; every event reached the receiver with a valid signature;
//   one key has one rate-limit bucket across both API processes; every file is in the bucket, none on local disk.
// It prints throughput and p99 latency per route and the recovery time after each fault.
//
// Environment: PLINTH_BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres, an admin URL: the
// bench creates and drops its own database), PLINTH_BENCH_REDIS_URL (default redis://127.0.0.1:6379),
// BENCH_SCALE_SECONDS, BENCH_SCALE_GENERATE_EVERY_MS (default 3000: one create with generation every 3 s; the test's
// short run makes fewer, since settling them is most of its time), BENCH_RESTART_POSTGRES (1 by default when
// pg_ctlcluster is on PATH and we are root). The restart is of the local cluster listening on the URL's port
// (pg_lsclusters): point the URL at a cluster of its own (pg_createcluster … --port 5433) on a machine where others
// use the main one.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import S3rver from 's3rver';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { freePort, spawnTracked, tempDir, waitForHttp } from './lib/processes.mjs';
import { CLI, ROOT, ensureBuilt, runCli } from './lib/plinth.mjs';
import { makeBoxGlb } from './products-lib/glb.mjs';

const SECONDS = Number(process.env.BENCH_SCALE_SECONDS || 180);
const GENERATE_EVERY_MS = Number(process.env.BENCH_SCALE_GENERATE_EVERY_MS || 3000);
const ADMIN_URL = process.env.PLINTH_BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.PLINTH_BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const ORIGIN = 'https://shop.example';
// Low enough that a burst drains a bucket on a busy machine; the publishable reads are paced to stay under it.
const RATE = { perSecond: 30, burst: 60 };
/** DESIGN §17: a killed worker's jobs settle within about 45 s of the kill, whatever the job lease is. */
const KILL_SETTLE_GOAL_MS = 45_000;
const KILL_FOLLOW_MS = 300_000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();
const failures = [];
const check = (ok, what, detail = '') => {
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${what}${detail ? `  (${detail})` : ''}`);
  if (!ok) failures.push(what);
};

// ---------------------------------------------------------------- services
async function reachable() {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
  } catch (err) {
    return `PostgreSQL is not reachable at PLINTH_BENCH_POSTGRES_URL (${err.message})`;
  }
  try {
    const { createConnection } = await import('node:net');
    const u = new URL(REDIS_URL);
    await new Promise((resolve, reject) => {
      const s = createConnection({ host: u.hostname, port: Number(u.port || 6379) }, () => s.end(resolve));
      s.on('error', reject);
      s.setTimeout(2000, () => reject(new Error('timeout')));
    });
  } catch (err) {
    return `Redis is not reachable at PLINTH_BENCH_REDIS_URL (${err.message})`;
  }
  return null;
}

async function createDatabase() {
  const name = `plinth_scale_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [name]);
      await c.query(`drop database if exists ${name}`);
      await c.end();
    },
  };
}

async function startS3(dir) {
  const port = await freePort();
  const server = new S3rver({ port, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'plinth-scale' }] });
  await server.run();
  return {
    url: `s3://plinth-scale?endpoint=http://127.0.0.1:${port}&region=us-east-1&force_path_style=true&access_key_id=S3RVER&secret_access_key=S3RVER`,
    dir,
    close: () => server.close(),
  };
}

/** Eight turntable-like views of a striped box on white, and a GLB, served on loopback. */
async function startFixtures() {
  const images = [];
  for (let i = 0; i < 8; i++) {
    const a = (i * Math.PI) / 4;
    const w = Math.round(300 * Math.abs(Math.cos(a)) + 160 * Math.abs(Math.sin(a)));
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="640"><rect width="640" height="640" fill="#ffffff"/>
      <defs><pattern id="p" width="24" height="24" patternUnits="userSpaceOnUse"><rect width="24" height="24" fill="#b03020"/><rect width="12" height="24" fill="#2050a0"/></pattern></defs>
      <rect x="${320 - w / 2}" y="180" width="${w}" height="300" fill="url(#p)"/></svg>`;
    images.push(await sharp(Buffer.from(svg)).png().toBuffer());
  }
  const glb = makeBoxGlb({ width: 0.3, height: 0.2, depth: 0.1 });
  const server = createServer((req, res) => {
    const m = /^\/img\/(\d)\.png$/.exec(req.url);
    if (m) return res.writeHead(200, { 'content-type': 'image/png' }).end(images[Number(m[1])]);
    if (req.url.startsWith('/model.glb')) return res.writeHead(200, { 'content-type': 'model/gltf-binary' }).end(glb);
    res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { imageUrls: images.map((_, i) => `${base}/img/${i}.png`), modelUrl: `${base}/model.glb`, close: () => server.close() };
}

/** Receives webhooks; each is verified with the endpoint's secret once it is known. */
async function startReceiver() {
  const received = new Map(); // event id -> count
  let verifier = null;
  let bad = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const event = verifier.verify(body, req.headers);
        received.set(event.id, (received.get(event.id) ?? 0) + 1);
        res.writeHead(200).end('ok');
      } catch {
        bad++;
        res.writeHead(400).end('bad signature');
      }
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    received,
    get bad() {
      return bad;
    },
    setSecret: (secret) => (verifier = new Webhook(secret)),
    close: () => new Promise((r) => server.close(r).closeAllConnections()),
  };
}

/** Round-robin over the API processes that are up; a refused connection tries the next one. */
async function startProxy(upstreams) {
  let next = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => forward(Buffer.concat(chunks), 0));
    function forward(body, tries) {
      const target = upstreams[next++ % upstreams.length];
      const out = httpRequest({ host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode, up.headers);
        up.pipe(res);
      });
      out.on('error', () => {
        if (res.headersSent) return res.destroy();
        if (tries + 1 < upstreams.length * 2) return setTimeout(() => forward(body, tries + 1), 20);
        res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":{"code":"bad_gateway"}}');
      });
      out.end(body);
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r).closeAllConnections()) };
}

// ---------------------------------------------------------------- processes
function plinthProcess(label, args, env) {
  const tracked = spawnTracked(process.execPath, [CLI, ...args], { cwd: ROOT, env, label });
  return tracked;
}

async function startApi(i, baseEnv) {
  const port = await freePort();
  const dataDir = join(baseEnv.root, `api-${i}`);
  mkdirSync(dataDir, { recursive: true });
  const env = { ...baseEnv.env, PORT: String(port), PLINTH_DATA_DIR: dataDir };
  const api = { port, dataDir, env, tracked: plinthProcess(`api-${i}`, ['serve', '--no-worker'], env) };
  await waitForHttp(`http://127.0.0.1:${port}/v1/health`, api.tracked, 60_000);
  return api;
}

function startWorker(i, baseEnv) {
  const dataDir = join(baseEnv.root, `worker-${i}`);
  mkdirSync(dataDir, { recursive: true });
  const env = { ...baseEnv.env, PLINTH_DATA_DIR: dataDir };
  return { dataDir, env, tracked: plinthProcess(`worker-${i}`, ['worker'], env) };
}

/**
 * Follows the jobs a SIGKILLed worker held (its heartbeat row, found by its process id) until each has left the
 * dead run (pg-boss started it again, or it is no longer active) and its product's model is ready or failed.
 * Resolves with each job's times in ms after the kill (null: not within the follow time).
 */
async function followHeld(url, pid, killedAt) {
  // A pool reconnects by itself across the PostgreSQL restart that comes later in the load.
  const db = new pg.Pool({ connectionString: url, max: 1 });
  db.on('error', () => {});
  const { rows } = await db.query('select jobs from workers where pid = $1', [pid]);
  const listed = rows.length ? JSON.parse(rows[0].jobs) : [];
  const jobs = [];
  for (const j of listed) {
    const { rows: data } = await db.query(`select data->>'product_id' as product_id from pgboss.job where id = $1`, [j.id]);
    jobs.push({ ...j, productId: data[0]?.product_id ?? null, releasedMs: null, rerunMs: null, settledMs: null, status: null });
  }
  const done = (async () => {
    const until = killedAt + KILL_FOLLOW_MS;
    while (now() < until && jobs.some((j) => j.releasedMs === null || j.rerunMs === null || j.settledMs === null)) {
      try {
        for (const j of jobs) {
          if (j.releasedMs === null) {
            const { rows: r } = await db.query('select state, started_on from pgboss.job where id = $1', [j.id]);
            const sameRun = r[0]?.state === 'active' && Math.abs(new Date(r[0].started_on).getTime() - new Date(j.started).getTime()) < 2;
            if (!sameRun) j.releasedMs = now() - killedAt;
          }
          if (j.releasedMs !== null && j.rerunMs === null) {
            const { rows: r } = await db.query('select state, started_on from pgboss.job where id = $1', [j.id]);
            const rerun = r[0] && r[0].state !== 'retry' && r[0].state !== 'created' && Math.abs(new Date(r[0].started_on).getTime() - new Date(j.started).getTime()) >= 2;
            if (rerun || r[0]?.state === 'failed') j.rerunMs = now() - killedAt;
          }
          if (j.settledMs === null && j.productId) {
            const { rows: p } = await db.query('select model_status from products where id = $1', [j.productId]);
            j.status = p[0]?.model_status ?? null;
            if (j.status !== 'queued' && j.status !== 'generating') j.settledMs = now() - killedAt;
          } else if (!j.productId) j.settledMs = j.releasedMs;
        }
      } catch {
        // PostgreSQL restarting: ask again.
      }
      await sleep(250);
    }
    await db.end().catch(() => {});
    return { jobs };
  })();
  // Wrapped: an async function's promise would otherwise wait for the one it returns.
  return { done };
}

/** CPU ticks of a process and its children (the sandboxed media children), from /proc. */
function treeTicks(pid) {
  let total = 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    total += Number(stat[11]) + Number(stat[12]);
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    for (const c of children) total += treeTicks(Number(c));
  } catch {
    /* gone */
  }
  return total;
}

// ---------------------------------------------------------------- load
const stats = new Map(); // route -> { ok, errors, latencies[] }
function record(route, ms, ok) {
  let s = stats.get(route);
  if (!s) stats.set(route, (s = { ok: 0, errors: 0, latencies: [] }));
  if (ok) s.ok++;
  else s.errors++;
  s.latencies.push(ms);
}

async function call(base, route, method, path, { key, body, headers = {}, origin } = {}) {
  const t0 = now();
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(origin ? { origin } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
    const buf = Buffer.from(await res.arrayBuffer());
    record(route, now() - t0, res.status < 500);
    let json = null;
    try {
      json = JSON.parse(buf.toString('utf8'));
    } catch {
      /* a ZIP */
    }
    return { status: res.status, json, bytes: buf.length, headers: res.headers };
  } catch (err) {
    record(route, now() - t0, false);
    return { status: 0, json: null, error: err };
  }
}

/** Retries a POST with the same Idempotency-Key until it gets an answer that is not a network error or a 5xx. */
async function idempotentPost(base, route, path, key, body, idemKey, deadline) {
  while (now() < deadline + 120_000) {
    const res = await call(base, route, 'POST', path, { key, body, headers: { 'idempotency-key': idemKey } });
    if (res.status && res.status < 500 && res.status !== 429) return res;
    await sleep(res.status === 429 ? 200 : 500);
  }
  return { status: 0 };
}

// ---------------------------------------------------------------- main
async function main() {
  const why = await reachable();
  if (why) {
    console.log(`scale-out: skipped: ${why}`);
    return;
  }
  ensureBuilt();
  const root = tempDir('plinth-scale-').path;
  const database = await createDatabase();
  const s3 = await startS3(join(root, 's3'));
  const fixtures = await startFixtures();
  const receiver = await startReceiver();
  const proxyUpstreams = [];
  const proxy = await startProxy(proxyUpstreams);

  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PLINTH_') && !['DATABASE_URL', 'REDIS_URL', 'STORAGE_URL', 'PUBLIC_URL', 'PORT'].includes(k))),
    DATABASE_URL: database.url,
    REDIS_URL: REDIS_URL,
    STORAGE_URL: s3.url,
    PUBLIC_URL: proxy.url,
    PLINTH_SECRET: 'scale-out-bench-secret-0123456789abcdef',
    PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    PLINTH_RATE_LIMIT_API_PER_SECOND: String(RATE.perSecond),
    PLINTH_RATE_LIMIT_API_BURST: String(RATE.burst),
    PLINTH_RATE_LIMIT_BEACON_PER_SECOND: '5000',
    PLINTH_RATE_LIMIT_BEACON_BURST: '10000',
    // The default lease: a killed worker's jobs must come back through the heartbeat, not a short lease.
    PLINTH_JOB_LEASE_SECONDS: '60',
    PLINTH_WEBHOOK_RETRY_SCALE: '0.01',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const baseEnv = { root, env };
  runCli(['migrate'], { ...env, PLINTH_DATA_DIR: join(root, 'cli') });
  const boot = (org) =>
    JSON.parse(
      runCli(['bootstrap', '--org', org, '--email', `${org.toLowerCase()}-${Date.now()}@bench.test`, '--plan', 'active', '--credits', '1000000', '--allowed-domain', ORIGIN, '--json'], {
        ...env,
        PLINTH_DATA_DIR: join(root, 'cli'),
      }),
    );
  const keys = boot('Scale');
  const limitsKeys = boot('Limits');

  const apis = [await startApi(0, baseEnv), await startApi(1, baseEnv)];
  proxyUpstreams.push(...apis);
  const workers = [startWorker(0, baseEnv), startWorker(1, baseEnv)];
  const base = proxy.url;
  console.log(`scale-out: 2 API + 2 worker processes on PostgreSQL, Redis and s3rver; ${SECONDS} s of mixed load`);

  const hook = await call(base, 'setup', 'POST', '/v1/webhooks', { key: keys.secret_key, body: { url: receiver.url, events: ['*'] } });
  if (hook.status !== 201) throw new Error(`could not create the webhook endpoint: ${hook.status} ${JSON.stringify(hook.json)}`);
  receiver.setSecret(hook.json.secret);

  // One published product for the publishable reads and beacons.
  const seed = await call(base, 'setup', 'POST', '/v1/products', { key: keys.secret_key, body: { model_url: fixtures.modelUrl, title: 'Seed', custom_id: 'seed' } });
  if (seed.status !== 202) throw new Error(`seed import failed: ${seed.status} ${JSON.stringify(seed.json)}`);
  const seedId = seed.json.id;
  for (let i = 0; i < 120; i++) {
    const p = await call(base, 'setup', 'GET', `/v1/products/${seedId}`, { key: keys.secret_key });
    if (p.json?.model_status === 'ready') break;
    if (p.json?.model_status === 'failed') throw new Error(`seed import failed: ${JSON.stringify(p.json.model_error)}`);
    await sleep(500);
  }
  const pub = await call(base, 'setup', 'POST', '/v1/products/publish', { key: keys.secret_key, body: { ids: [seedId] } });
  if (pub.status !== 200 || !pub.json.updated.includes(seedId)) throw new Error(`could not publish the seed product: ${JSON.stringify(pub.json)}`);

  // Does this version take a capture hint? Turntable photos need no camera recovery.
  const probe = await call(base, 'setup', 'POST', '/v1/products', { key: keys.secret_key, body: { image_urls: fixtures.imageUrls, capture: { kind: 'turntable' } } });
  const capture = probe.status === 200 ? { capture: { kind: 'turntable' } } : {};

  const t0 = now();
  const deadline = t0 + SECONDS * 1000;
  const acknowledged = { creates: new Map(), imports: new Map(), beaconEvents: 0 };
  const loops = [];
  const every = (ms, fn) =>
    loops.push(
      (async () => {
        let n = 0;
        while (now() < deadline) {
          const started = now();
          await fn(n++);
          await sleep(Math.max(0, ms - (now() - started)));
        }
      })(),
    );

  every(GENERATE_EVERY_MS, async (n) => {
    const customId = `gen-${n}`;
    const quote = await idempotentPost(base, 'POST /v1/products (quote)', '/v1/products', keys.secret_key, { image_urls: fixtures.imageUrls, title: `Generated ${n}`, custom_id: customId, ...capture }, `quote-${n}`, deadline);
    if (quote.status !== 200) return;
    const commit = await idempotentPost(base, 'POST /v1/products (commit)', '/v1/products', keys.secret_key, { resume_token: quote.json.resume_token }, `commit-${n}`, deadline);
    if (commit.status === 202) acknowledged.creates.set(customId, commit.json.id);
  });
  every(4000, async (n) => {
    const customId = `imp-${n}`;
    const res = await idempotentPost(base, 'POST /v1/products (import)', '/v1/products', keys.secret_key, { model_url: `${fixtures.modelUrl}?n=${n}`, custom_id: customId }, `import-${n}`, deadline);
    if (res.status === 202) acknowledged.imports.set(customId, res.json.id);
  });
  for (let i = 0; i < 2; i++) every(80, async () => void (await call(base, 'GET /v1/products/{id} (pk_)', 'GET', `/v1/products/${seedId}`, { key: keys.publishable_key, origin: ORIGIN })));
  for (let i = 0; i < 4; i++)
    every(25, async (n) => {
      const count = n % 2 ? 20 : 1;
      const events = Array.from({ length: count }, () => ({ type: 'view', product_id: seedId }));
      const res = await call(base, 'POST /v1/beacon', 'POST', '/v1/beacon', { key: keys.publishable_key, origin: ORIGIN, body: { events } });
      if (res.status >= 200 && res.status < 300) acknowledged.beaconEvents += count;
    });
  every(10_000, async () => {
    const ready = [...acknowledged.imports.values()].slice(-5);
    if (!ready.length) return;
    const qs = ready.map((id) => `ids=${id}`).join('&');
    await call(base, 'GET /v1/products/export', 'GET', `/v1/products/export?${qs}`, { key: keys.secret_key });
  });

  // ---------------- faults
  const recoveries = [];
  let heldAtKill = null;
  const faults = (async () => {
    // A worker in the middle of a generation: the busier worker (its sandboxed children included) while a
    // generation job is active.
    await sleep(SECONDS * 250);
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    for (let i = 0; i < 60; i++) {
      const { rows } = await db.query(`select count(*)::int as n from pgboss.job where name like 'generate%' and state = 'active'`);
      if (rows[0].n > 0) break;
      await sleep(500);
    }
    await db.end();
    const before = workers.map((w) => treeTicks(w.tracked.child.pid));
    await sleep(500);
    const busy = workers.map((w, i) => treeTicks(w.tracked.child.pid) - before[i]);
    const victim = busy[1] > busy[0] ? 1 : 0;
    const victimPid = workers[victim].tracked.child.pid;
    const killedAt = now();
    workers[victim].tracked.child.kill('SIGKILL');
    await workers[victim].tracked.exited;
    heldAtKill = await followHeld(database.url, victimPid, killedAt);
    await sleep(2000);
    workers[victim] = startWorker(victim, baseEnv);
    recoveries.push({ fault: `SIGKILL worker-${victim} during a generation (cpu ticks ${busy.join('/')})`, restartMs: now() - killedAt });

    // An API process in the middle of requests.
    await sleep(Math.max(0, t0 + SECONDS * 500 - now()));
    const apiKilledAt = now();
    apis[0].tracked.child.kill('SIGKILL');
    await apis[0].tracked.exited;
    const restarted = await startApi(0, { ...baseEnv });
    proxyUpstreams[0] = restarted;
    apis[0] = restarted;
    recoveries.push({ fault: 'SIGKILL api-0 under load, restart until it answers /v1/health', restartMs: now() - apiKilledAt });

    // PostgreSQL restart.
    await sleep(Math.max(0, t0 + SECONDS * 700 - now()));
    const canRestart = process.env.BENCH_RESTART_POSTGRES !== '0' && process.getuid?.() === 0 && hasCommand('pg_ctlcluster');
    const cluster = canRestart ? clusterOf(ADMIN_URL) : null;
    if (cluster) {
      const pgAt = now();
      execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', cluster.version, cluster.name, 'restart'], { stdio: 'ignore' });
      // Recovered when a write through the API succeeds again.
      for (;;) {
        const r = await call(base, 'recovery', 'POST', '/v1/products', { key: keys.secret_key, body: { image_urls: fixtures.imageUrls } });
        if (r.status === 200) break;
        await sleep(200);
      }
      recoveries.push({ fault: 'PostgreSQL restart, until a quote succeeds through the API', restartMs: now() - pgAt });
    } else {
      recoveries.push({ fault: 'PostgreSQL restart skipped (BENCH_RESTART_POSTGRES=0, not root, no pg_ctlcluster, or no local cluster on the URL\'s port)', restartMs: null });
    }
  })();

  await Promise.all(loops);
  await faults;
  const loadSeconds = (now() - t0) / 1000;
  // Only the faults above kill a process: one that is gone now died by itself (a database restart, say).
  const died = [...apis, ...workers].filter((p) => p.tracked.child.exitCode !== null || p.tracked.child.signalCode !== null);
  for (const p of died) console.log(`${p.tracked.label} exited by itself (${p.tracked.child.exitCode ?? p.tracked.child.signalCode}):\n${p.tracked.output.stderr.slice(-3000)}`);

  // ---------------- settle: every acknowledged product reaches a final state, every event is delivered
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  const allIds = [...acknowledged.creates.values(), ...acknowledged.imports.values()];
  const settleDeadline = now() + 600_000;
  let unsettled = allIds.length;
  while (now() < settleDeadline) {
    const { rows } = await db.query(`select count(*)::int as n from products where id = any($1) and model_status in ('queued', 'generating')`, [allIds]);
    unsettled = rows[0].n;
    if (!unsettled) break;
    await sleep(1000);
  }
  let undelivered = [];
  while (now() < settleDeadline) {
    const { rows } = await db.query(`select id from events where org_id = $1 and created_at >= $2`, [keys.org_id, hook.json.created_at]);
    undelivered = rows.map((r) => r.id).filter((id) => !receiver.received.has(id));
    if (!undelivered.length) break;
    await sleep(1000);
  }

  // ---------------- checks
  console.log('');
  const customIds = [...acknowledged.creates.keys(), ...acknowledged.imports.keys()];
  const { rows: present } = await db.query(`select custom_id, count(*)::int as n from products where org_id = $1 and custom_id = any($2) group by custom_id`, [keys.org_id, customIds]);
  const counts = new Map(present.map((r) => [r.custom_id, r.n]));
  const missing = customIds.filter((c) => !counts.has(c));
  const duplicated = customIds.filter((c) => (counts.get(c) ?? 0) > 1);
  check(!missing.length && !duplicated.length, 'every acknowledged create present exactly once', `${customIds.length} acknowledged, ${missing.length} missing, ${duplicated.length} duplicated`);
  check(unsettled === 0, 'every acknowledged product reached ready or failed (none left queued or generating)', `${unsettled} unsettled`);
  check(!died.length, 'no API or worker process died by itself during the load', died.map((p) => p.tracked.label).join(', ') || 'none');

  const { rows: finals } = await db.query(
    `select (data::json->'object'->>'id') as id, count(*)::int as n from events where org_id = $1 and type in ('product.model.ready', 'product.model.failed') group by 1`,
    [keys.org_id],
  );
  const finalCount = new Map(finals.map((r) => [r.id, r.n]));
  const generated = [...acknowledged.creates.values()];
  const twice = generated.filter((id) => (finalCount.get(id) ?? 0) > 1);
  const never = generated.filter((id) => !finalCount.has(id));
  const { rows: outcome } = await db.query(`select model_status, count(*)::int as n from products where id = any($1) group by 1`, [generated]);
  check(!twice.length && !never.length, 'every generation finished exactly once (one final event per product)', `${generated.length} generations: ${outcome.map((r) => `${r.n} ${r.model_status}`).join(', ') || 'none'}; ${twice.length} twice, ${never.length} never`);
  const { rows: overlapping } = await db.query(
    `select count(*)::int as n from pgboss.job where name like 'generate%' and retry_count > 0`,
  );
  console.log(`      generation jobs retried after a kill or a failure: ${overlapping[0].n}`);

  // The killed worker's jobs, as its last heartbeat listed them: each leaves the dead run (retried elsewhere, or
  // failed) within KILL_SETTLE_GOAL_MS of the kill (DESIGN §17), and its product settles; none is left generating.
  const held = heldAtKill ? await heldAtKill.done : null;
  if (!held) check(false, 'the killed worker was found holding jobs (its heartbeat row)', 'no worker was killed');
  else if (!held.jobs.length) console.log('      the killed worker held no job at its last heartbeat: nothing to settle');
  else {
    const late = (ms) => ms === null || ms > KILL_SETTLE_GOAL_MS;
    const fmt = (ms) => (ms === null ? 'never' : `${(ms / 1000).toFixed(1)} s`);
    for (const j of held.jobs) console.log(`      ${j.queue} ${j.id} (product ${j.productId ?? '-'}): released ${fmt(j.releasedMs)}, running again ${fmt(j.rerunMs)}, product settled ${fmt(j.settledMs)} after the kill, now ${j.status ?? '-'}`);
    const slowest = (key) => fmt(Math.max(...held.jobs.map((j) => j[key] ?? Infinity)));
    check(held.jobs.every((j) => !late(j.releasedMs)), `the killed worker's jobs left it within ${KILL_SETTLE_GOAL_MS / 1000} s of the kill (retried elsewhere or failed)`, `${held.jobs.length} held; the last released after ${slowest('releasedMs')}`);
    // A released job runs again from its start (a generation takes minutes): its product settles when that run ends.
    check(
      held.jobs.every((j) => j.settledMs !== null && j.status !== 'generating' && j.status !== 'queued'),
      "the killed worker's products all settled (ready or failed), none left generating",
      `the last ${slowest('settledMs')} after the kill; within ${KILL_SETTLE_GOAL_MS / 1000} s: ${held.jobs.filter((j) => !late(j.settledMs)).length} of ${held.jobs.length}`,
    );
  }

  const end = new Date(Date.now() + 3600_000);
  end.setUTCMinutes(0, 0, 0);
  const start = new Date(end.getTime() - 2 * 3600_000);
  const usage = await call(base, 'check', 'GET', `/v1/usage?start=${start.toISOString()}&end=${end.toISOString()}&granularity=hour`, { key: keys.secret_key });
  const counted = usage.json?.totals?.view ?? -1;
  check(counted >= acknowledged.beaconEvents, 'every acknowledged beacon counted', `${acknowledged.beaconEvents} acknowledged, ${counted} counted`);

  check(!undelivered.length && receiver.bad === 0, 'every event delivered to the receiver at least once, each signature valid', `${receiver.received.size} events received, ${undelivered.length} missing, ${receiver.bad} bad signatures`);

  // One key, one bucket: drain the key's bucket through api-0, then ask api-1. With one shared bucket api-1 sees it
  // (nearly) empty; with a bucket per process it would report a full one.
  const api0 = `http://127.0.0.1:${apis[0].port}`;
  const api1 = `http://127.0.0.1:${apis[1].port}`;
  let drained = false;
  let sent = 0;
  while (!drained && sent < RATE.burst * 20) {
    const batch = await Promise.all(Array.from({ length: 25 }, () => call(api0, 'rate-limit drain', 'GET', '/v1/projects', { key: limitsKeys.secret_key })));
    sent += batch.length;
    drained = batch.some((r) => r.status === 429);
  }
  const probe1 = await call(api1, 'rate-limit probe', 'GET', '/v1/projects', { key: limitsKeys.secret_key });
  const remaining = probe1.status === 429 ? 0 : Number(probe1.headers?.get('ratelimit-remaining') ?? NaN);
  check(
    drained && remaining < RATE.burst / 2,
    'rate limits shared across both API processes (one bucket per key)',
    `drained through api-0 after ${sent} requests; api-1 then answered ${probe1.status} with ${remaining} remaining of ${RATE.burst}`,
  );

  const localFiles = [...apis, ...workers].flatMap((p) => listFiles(p.dataDir));
  const bucketFiles = listFiles(join(s3.dir, 'plinth-scale')).length;
  check(!localFiles.length && bucketFiles > 0, 'all files in the bucket, none on local disk', `${bucketFiles} objects in the bucket; ${localFiles.length} local files${localFiles.length ? `: ${localFiles.slice(0, 3).join(', ')}` : ''}`);
  await db.end();

  // ---------------- report
  console.log(`\nthroughput and latency over ${loadSeconds.toFixed(0)} s (client side, through the proxy):`);
  console.log('route'.padEnd(34) + 'ok'.padStart(8) + 'errors'.padStart(8) + 'req/s'.padStart(9) + 'p50 ms'.padStart(9) + 'p99 ms'.padStart(9));
  for (const [route, s] of [...stats].filter(([r]) => r.startsWith('GET') || r.startsWith('POST'))) {
    const sorted = s.latencies.sort((a, b) => a - b);
    const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
    console.log(route.padEnd(34) + String(s.ok).padStart(8) + String(s.errors).padStart(8) + ((s.ok + s.errors) / loadSeconds).toFixed(1).padStart(9) + q(0.5).toFixed(1).padStart(9) + q(0.99).toFixed(1).padStart(9));
  }
  console.log('\nfaults and recovery:');
  for (const r of recoveries) console.log(`  ${r.fault}: ${r.restartMs === null ? '-' : `${(r.restartMs / 1000).toFixed(1)} s`}`);
  console.log(`peak RSS of this bench process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

  for (const p of [...apis, ...workers]) p.tracked.child.kill('SIGTERM');
  await Promise.all([...apis, ...workers].map((p) => Promise.race([p.tracked.exited, sleep(15_000)])));
  await proxy.close();
  await receiver.close();
  fixtures.close();
  await s3.close();
  await database.drop();
  console.log(failures.length ? `\nscale-out: ${failures.length} check(s) failed` : '\nscale-out: all checks passed');
  process.exitCode = failures.length ? 1 : 0;
}

/** The local cluster (pg_lsclusters) listening on the URL's port: the one the bench's database lives in. */
function clusterOf(url) {
  const port = new URL(url).port || '5432';
  try {
    const lines = execFileSync('pg_lsclusters', ['--no-header'], { encoding: 'utf8' }).trim().split('\n');
    const found = lines.map((l) => l.trim().split(/\s+/)).find((f) => f[2] === port);
    return found ? { version: found[0], name: found[1] } : null;
  } catch {
    return null;
  }
}

function hasCommand(name) {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function listFiles(dir) {
  const out = [];
  let entries = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) out.push(...listFiles(path));
    else if (!/plinth\.db|\.log$|secret/.test(name)) out.push(path);
  }
  return out;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
