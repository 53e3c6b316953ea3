// Peak RSS of the Plinth server while it streams a 200-product export (400 finished images) from
// the finishing cache: the ZIP is written entry by entry, so the server's memory should stay flat
// however large the archive. Goal: peak RSS ≤ 300 MB.
//
//   npm run build -w packages/server && node bench/export-stream.mjs [--products=200] [--concurrency=8]
//
// Seeds products through the public API (raw-body uploads → quote → commit), warms the cache with a
// first export (which finishes every image inside the request), then measures the second export
// while sampling the server child's VmRSS from /proc every 50 ms; VmHWM gives the kernel's peak.
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { startPlinth } from './lib/plinth.mjs';
import { printEnvironment, recordResult } from './lib/report.mjs';

const GOAL_MB = 300;
const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const PRODUCTS = Number(args.products ?? 200);
const IMAGES_PER_PRODUCT = 2;
const CONCURRENCY = Number(args.concurrency ?? 8);
const SAMPLE_MS = 50;
const MB = 2 ** 20;
const mb = (bytes) => (bytes / MB).toFixed(1);
const secs = (ms) => (ms / 1000).toFixed(1);

// ---------- /proc helpers ----------

/** kB figures from /proc/<pid>/status, as bytes. */
function procStatus(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : NaN;
  };
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/** Direct children of `ppid` as { pid, cmdline }. */
function childrenOf(ppid) {
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Field 4 (ppid) comes after the parenthesised command, which may contain spaces.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[1]) !== ppid) continue;
      found.push({ pid: Number(name), cmdline: readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ') });
    } catch {
      // The process went away while we looked.
    }
  }
  return found;
}

/** startPlinth does not expose the child's pid; it is our direct child running `plinth.js serve`. */
function serverPid() {
  const candidates = childrenOf(process.pid).filter((c) => c.cmdline.includes('plinth.js') && c.cmdline.includes(' serve'));
  if (candidates.length !== 1) throw new Error(`expected one 'plinth serve' child, found ${JSON.stringify(candidates)}`);
  return candidates[0].pid;
}

/** Samples VmRSS of `pid` (and any descendants, in case the server forks helpers) until stopped. */
function sampleRss(pid, intervalMs = SAMPLE_MS) {
  let max = 0;
  let maxDescendants = 0;
  let samples = 0;
  const take = () => {
    try {
      const own = procStatus(pid).rss;
      let desc = 0;
      for (const c of childrenOf(pid)) {
        try {
          desc += procStatus(c.pid).rss;
        } catch {
          // gone
        }
      }
      max = Math.max(max, own);
      maxDescendants = Math.max(maxDescendants, desc);
      samples++;
    } catch {
      // The server exited; the export request will fail and say so.
    }
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return { max, maxDescendants, samples };
    },
  };
}

// ---------- API helpers ----------

let plinth;
const auth = () => ({ authorization: `Bearer ${plinth.keys.secret_key}` });

async function api(method, path, body) {
  const res = await fetch(`${plinth.url}${path}`, {
    method,
    headers: { ...auth(), ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // left null; errors quote the text
  }
  return { status: res.status, json, text };
}

function expect(res, status, what) {
  if (res.status !== status) throw new Error(`${what} answered ${res.status} (expected ${status}): ${res.text.slice(0, 500)}`);
  return res.json;
}

/** A distinct ~1000×800 "product photo": a coloured disc with a soft shadow on an off-white background. */
async function productPhoto(i) {
  const hue = (i * 137.508) % 360; // golden angle: neighbouring images get well-separated colours
  const light = 35 + (i % 5) * 6;
  const r = 220 + ((i * 7) % 120);
  const cx = 500 + ((i * 13) % 80) - 40;
  const cy = 400 + ((i * 29) % 60) - 30;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="800">
    <rect width="1000" height="800" fill="rgb(${244 + (i % 6)},${241 + (i % 5)},${236 + (i % 7)})"/>
    <ellipse cx="${cx}" cy="${cy + r + 20}" rx="${r * 0.9}" ry="${r * 0.12}" fill="rgba(0,0,0,0.18)"/>
    <circle cx="${cx}" cy="${cy}" r="${r}" fill="hsl(${hue.toFixed(1)},70%,${light}%)"/>
    <circle cx="${cx - r * 0.35}" cy="${cy - r * 0.35}" r="${r * 0.25}" fill="rgba(255,255,255,0.25)"/>
    <text x="20" y="780" font-size="14" fill="#bbb">bench ${i}</text>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 88 }).toBuffer();
}

async function upload(data) {
  const res = await fetch(`${plinth.url}/v1/uploads`, { method: 'POST', headers: { ...auth(), 'content-type': 'image/jpeg' }, body: data });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /v1/uploads answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text).path;
}

async function createProduct(n) {
  const paths = [];
  for (let k = 0; k < IMAGES_PER_PRODUCT; k++) paths.push(await upload(await productPhoto(n * IMAGES_PER_PRODUCT + k)));
  const quote = expect(await api('POST', '/v1/products', { image_paths: paths, generate_model: false }), 200, 'POST /v1/products (quote)');
  const product = expect(await api('POST', '/v1/products', { resume_token: quote.resume_token }), 202, 'POST /v1/products (commit)');
  return product.id;
}

async function pool(count, concurrency, work) {
  const results = new Array(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await work(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return results;
}

async function listAll() {
  const all = [];
  for (let offset = 0; ; offset += 100) {
    const page = expect(await api('GET', `/v1/products?limit=100&offset=${offset}`), 200, 'GET /v1/products');
    const data = page.data ?? [];
    all.push(...data);
    if (data.length < 100 || page.has_more === false) break;
  }
  return all;
}

async function waitReady(ids, timeoutMs = 5 * 60_000) {
  const wanted = new Set(ids);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = {};
    const failed = [];
    for (const p of await listAll()) {
      if (!wanted.has(p.id)) continue;
      counts[p.images_status] = (counts[p.images_status] ?? 0) + 1;
      if (p.images_status === 'failed') failed.push(p);
    }
    if (failed.length) throw new Error(`${failed.length} products failed ingestion, e.g. ${JSON.stringify(failed[0].error ?? failed[0])}`);
    if ((counts.ready ?? 0) === wanted.size) return;
    if (Date.now() > deadline) throw new Error(`images not ready after ${timeoutMs} ms: ${JSON.stringify(counts)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** GET the export and read it to the end, counting bytes; nothing is kept in memory here. */
async function runExport(ids) {
  const qs = ids.map((id) => `ids=${encodeURIComponent(id)}`).join('&');
  const started = performance.now();
  const res = await fetch(`${plinth.url}/v1/products/export?${qs}`, { headers: auth() });
  const firstByteMs = performance.now() - started;
  if (res.status !== 200) throw new Error(`GET /v1/products/export answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
  let bytes = 0;
  let tail = Buffer.alloc(0);
  for await (const chunk of res.body) {
    bytes += chunk.length;
    tail = Buffer.concat([tail, chunk]).subarray(-22);
  }
  // End of central directory record: signature and entry count, a cheap check the ZIP is whole.
  const eocdOk = tail.length === 22 && tail.readUInt32LE(0) === 0x06054b50;
  return { bytes, ms: performance.now() - started, firstByteMs, entries: eocdOk ? tail.readUInt16LE(10) : null };
}

// ---------- run ----------

printEnvironment();
const t0 = performance.now();
plinth = await startPlinth({
  bootstrap: { org: 'Bench export stream', plan: 'active', credits: 1_000_000, activeProductCap: 100_000 },
  env: { PLINTH_RATE_LIMITS: 'off', LOG_LEVEL: 'warn', PLINTH_EXPORT_SYNC_LIMIT: '1000' },
});
try {
  const pid = serverPid();
  console.log(`plinth serve pid ${pid} at ${plinth.url}; sharp ${sharp.versions.sharp}`);

  let t = performance.now();
  const ids = await pool(PRODUCTS, CONCURRENCY, createProduct);
  console.log(`created ${ids.length} products (${ids.length * IMAGES_PER_PRODUCT} uploads) in ${secs(performance.now() - t)} s`);
  t = performance.now();
  await waitReady(ids);
  console.log(`all images_status = ready after ${secs(performance.now() - t)} s more`);

  // Warm-up: every image is finished inside this request and cached.
  t = performance.now();
  const warm = await runExport(ids);
  console.log(`warm-up export (finishes ${ids.length * IMAGES_PER_PRODUCT} images): ${mb(warm.bytes)} MB in ${secs(warm.ms)} s`);

  // Let the heap settle after the finishing work so "before" is a fair baseline.
  await new Promise((r) => setTimeout(r, 2000));
  const before = procStatus(pid);
  const watch = sampleRss(pid);
  const measured = await runExport(ids);
  const sampled = watch.stop();
  const after = procStatus(pid);

  const peakSampled = sampled.max;
  const hwm = after.hwm; // process lifetime peak: includes the warm-up's finishing work
  console.log('');
  console.log(`products                ${ids.length}`);
  console.log(`images                  ${ids.length * IMAGES_PER_PRODUCT}${measured.entries !== null ? ` (ZIP has ${measured.entries} entries incl. manifest)` : ' (ZIP end record not found!)'}`);
  console.log(`ZIP bytes               ${measured.bytes} (${mb(measured.bytes)} MB)`);
  console.log(`time                    ${secs(measured.ms)} s (first byte ${measured.firstByteMs.toFixed(0)} ms), ${mb(measured.bytes / (measured.ms / 1000))} MB/s`);
  console.log(`RSS before export       ${mb(before.rss)} MB (VmHWM so far ${mb(before.hwm)} MB, set by seeding + warm-up finishing)`);
  console.log(`peak RSS while streaming ${mb(peakSampled)} MB sampled max (${sampled.samples} samples @ ${SAMPLE_MS} ms); delta +${mb(peakSampled - before.rss)} MB`);
  console.log(`VmHWM after export      ${mb(hwm)} MB${hwm > before.hwm ? ' (raised by the streaming export)' : ' (unchanged: the streaming export did not raise the lifetime peak)'}`);
  console.log(`RSS after export        ${mb(after.rss)} MB`);
  if (sampled.maxDescendants) console.log(`server descendants' RSS max ${mb(sampled.maxDescendants)} MB`);
  console.log(`total run               ${secs(performance.now() - t0)} s`);
  const ok = peakSampled <= GOAL_MB * MB;
  console.log(
    ok
      ? `OK: server peak RSS while streaming ${mb(peakSampled)} MB (goal ≤ ${GOAL_MB} MB)`
      : `OVER GOAL: server peak RSS while streaming ${mb(peakSampled)} MB (goal ≤ ${GOAL_MB} MB)`,
  );
  recordResult('export-stream', {
    products: ids.length,
    images: ids.length * IMAGES_PER_PRODUCT,
    zipBytes: measured.bytes,
    seconds: measured.ms / 1000,
    rssBeforeBytes: before.rss,
    peakRssSampledBytes: peakSampled,
    vmHwmBeforeBytes: before.hwm,
    vmHwmAfterBytes: hwm,
    warmupSeconds: warm.ms / 1000,
  });
} finally {
  await plinth.stop();
}
