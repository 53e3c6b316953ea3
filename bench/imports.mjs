// Imports through the public API, as a shop importing its catalogue would: POST /v1/uploads, POST /v1/products
// {model_path}, then GET the product until its model is `ready`. Two parts:
//   1. one at a time, BENCH_IMPORTS (default 5) small models (a 12-triangle box) and as many medium ones (a
//      20,000-triangle sphere with a 1024 px texture): ms from the 202 to ready, p50/p95 per model, posters
//      included (the product's thumbnail_url is the poster);
//   2. the drain: BENCH_IMPORTS_DRAIN (default 120) boxes created at once, and the time from the first POST until
//      the last is ready (polled one product at a time, in the order they were created).
// Side by side with the baseline: the same server without Chromium, where an import skips its poster, so the
// ratio is what the poster costs. Prints the peak resident memory of each server (with its children and browser).
// Goals: a small import ready within 5 s of its 202; 120 imports drained in under 90 s.
// Each server's worker warms up as it starts (its media sandbox child and its browser, see warmWorker in
// packages/server/src/worker.ts); the first import is sent once the server logs that the warm-up is over, as on a
// worker that has been up a few seconds, and is printed on its own line. BENCH_IMPORTS_COLD=1 sends it as soon as
// /v1/health answers instead, while the worker is still warming.
//
//   npm run build && node bench/imports.mjs
import { boxModel, sphereModel } from './imports-lib/models.mjs';
import { peakSampler, percentile } from './lib/memory.mjs';
import { startPlinth } from './lib/plinth.mjs';
import { printEnvironment } from './lib/report.mjs';
import { api } from './products-lib/seed.mjs';

const imports = Number(process.env.BENCH_IMPORTS ?? 5);
const drainCount = Number(process.env.BENCH_IMPORTS_DRAIN ?? 120);
const cold = process.env.BENCH_IMPORTS_COLD === '1';
const WARM_TIMEOUT_MS = 5 * 60_000;
const TIMEOUT_MS = 10 * 60_000;
const SMALL_GOAL_MS = 5_000;
const DRAIN_GOAL_MS = 90_000;

async function upload(plinth, glb) {
  const res = await fetch(`${plinth.url}/v1/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${plinth.keys.secret_key}`, 'content-type': 'model/gltf-binary' },
    body: glb,
  });
  if (res.status !== 201) throw new Error(`POST /v1/uploads answered ${res.status}: ${await res.text()}`);
  return (await res.json()).path;
}

async function create(plinth, path, title) {
  const created = await api(plinth, 'POST', '/v1/products', { model_path: path, title });
  if (created.status !== 202) throw new Error(`POST /v1/products answered ${created.status}: ${created.text}`);
  return created.json.id;
}

/** Polls until the model is ready; the product as the API shows it. */
async function ready(plinth, id) {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const got = await api(plinth, 'GET', `/v1/products/${id}`);
    if (got.status !== 200) throw new Error(`GET /v1/products/${id} answered ${got.status}: ${got.text}`);
    if (got.json.model_status === 'ready') return got.json;
    if (got.json.model_status === 'failed') throw new Error(`import failed: ${JSON.stringify(got.json.error)}`);
    if (Date.now() > deadline) throw new Error(`still ${got.json.model_status} after ${TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function oneAtATime(plinth, models) {
  const runs = [];
  for (const model of models) {
    const path = await upload(plinth, model.glb);
    const started = performance.now();
    const product = await ready(plinth, await create(plinth, path, model.name));
    runs.push({ ms: performance.now() - started, poster: Boolean(product.thumbnail_url) });
  }
  return runs;
}

async function drain(plinth, count) {
  const paths = [];
  for (let i = 0; i < count; i++) paths.push(await upload(plinth, (await boxModel(i / count)).glb));
  const started = performance.now();
  const ids = await Promise.all(paths.map((path, i) => create(plinth, path, `Drained box ${i}`)));
  const answered = performance.now() - started;
  // Waited for in the order they were created (the queue's order), one GET at a time: a poll loop per product
  // (120 GETs every 50 ms) would load the server, and this machine, more than the imports do.
  const products = [];
  for (const id of ids) products.push(await ready(plinth, id));
  return { ms: performance.now() - started, answered, posters: products.filter((p) => p.thumbnail_url).length };
}

/** Waits for the worker's warm-up log lines (at info level): the sandbox child always, the browser when it has one. */
async function warmedUp(plinth, withBrowser) {
  const lines = ['"msg":"media sandbox warmed"', ...(withBrowser ? ['"msg":"renderer warmed"'] : [])];
  const started = performance.now();
  while (!lines.every((line) => plinth.output.stdout.includes(line))) {
    if (/warm-up failed/.test(plinth.output.stdout)) throw new Error(`the warm-up failed:\n${plinth.output.stdout.slice(-2000)}`);
    if (performance.now() - started > WARM_TIMEOUT_MS) throw new Error('the worker did not log its warm-up');
    await new Promise((r) => setTimeout(r, 100));
  }
  return performance.now() - started;
}

async function measure(label, env, withBrowser) {
  // Info level for the warm-up's log lines; the requests' lines that come with it cost the server little.
  const plinth = await startPlinth({ bootstrap: { org: `Imports bench ${label}`, plan: 'active', credits: 100_000 }, env: { LOG_LEVEL: 'info', ...env }, settle: false });
  const memory = peakSampler(() => plinth.pid);
  try {
    const warmMs = cold ? null : await warmedUp(plinth, withBrowser);
    const small = await oneAtATime(plinth, await Promise.all(Array.from({ length: imports }, (_, i) => boxModel(i / imports))));
    const medium = await oneAtATime(plinth, await Promise.all(Array.from({ length: imports }, (_, i) => sphereModel({ triangles: 20_000, textureSize: 1024, seed: i + 1 }))));
    const drained = await drain(plinth, drainCount);
    return { small, medium, drained, warmMs, peakMb: memory.stop() };
  } finally {
    memory.stop();
    await plinth.stop();
  }
}

printEnvironment();
const baseline = await measure('no poster', { PLINTH_CHROMIUM_PATH: 'plinth-bench-no-chromium' }, false);
const subject = await measure('with poster', {}, true);

const p = (runs, q) => Math.round(percentile(runs.map((r) => r.ms), q));
const fmt = (n) => n.toLocaleString('en-US');
console.log(`\nImports through the API, ${imports} of each model one at a time, then ${drainCount} boxes at once\n`);
console.log('| measure | no poster (baseline) | with poster | ratio |\n|---|---|---|---|');
for (const [label, key] of [['box (12 triangles)', 'small'], ['sphere (20k triangles, 1024 px texture)', 'medium']]) {
  for (const q of [50, 95]) {
    const a = p(baseline[key], q);
    const b = p(subject[key], q);
    console.log(`| ${label}, p${q} ms from 202 to ready | ${fmt(a)} | ${fmt(b)} | ${(b / a).toFixed(2)}x |`);
  }
}
const first = (r) => Math.round(r.small[0].ms);
console.log(`| box, the first import of the worker, ms ${cold ? '(sent as soon as /v1/health answers)' : '(sent after its warm-up)'} | ${fmt(first(baseline))} | ${fmt(first(subject))} | ${(first(subject) / first(baseline)).toFixed(2)}x |`);
const d = (r) => Math.round(r.drained.ms);
console.log(`| drain of ${drainCount} boxes, ms | ${fmt(d(baseline))} | ${fmt(d(subject))} | ${(d(subject) / d(baseline)).toFixed(2)}x |`);
console.log(`| posters made (one at a time + drain) | ${baseline.small.concat(baseline.medium).filter((r) => r.poster).length + baseline.drained.posters} | ${subject.small.concat(subject.medium).filter((r) => r.poster).length + subject.drained.posters} | |`);
console.log(`| peak RSS of the server and its children, MB | ${Math.round(baseline.peakMb)} | ${Math.round(subject.peakMb)} | |`);
if (!cold) console.log(`\nwaited for the warm-up after /v1/health answered: ${fmt(Math.round(baseline.warmMs))} ms (no poster), ${fmt(Math.round(subject.warmMs))} ms (with poster)`);
const smallP50 = p(subject.small, 50);
const smallMax = Math.round(Math.max(...subject.small.map((r) => r.ms)));
console.log(`\nsmall import p50 ${fmt(smallP50)} ms, slowest ${fmt(smallMax)} ms (goal ≤ ${fmt(SMALL_GOAL_MS)}: ${smallMax <= SMALL_GOAL_MS ? 'met' : 'not met'}); ` +
  `drain ${fmt(d(subject))} ms (goal < ${fmt(DRAIN_GOAL_MS)}: ${d(subject) < DRAIN_GOAL_MS ? 'met' : 'not met'})`);
