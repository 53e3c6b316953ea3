// GET /v1/products/{id} with a publishable key from an allowed origin (what the embed does on every
// page view) against a bare node:http server sending the same body and headers, captured from
// Plinth once. Plinth checks the key (resolved at most 5 s ago), its scope, the origin and the token
// bucket on every request, and sends the product's public answer (read from the database at most 2 s
// ago); with the key and the answer cached, its front door answers before routing.
// Load comes from wrk in its own process, in alternating rounds. Goal: a median ratio of at least 0.8x the
// baseline's requests/s.
//
//   npm run build && node bench/product-read.mjs [--breakdown]     (BENCH_CONNECTIONS, BENCH_DURATION, BENCH_ROUNDS)
//
// --breakdown also measures requests that stop earlier on the same path (an unknown route,
// /v1/health, a 403, a 404) with each server's CPU time per request, to show where the time goes.
import { loadavg } from 'node:os';
import { startBaseline } from './lib/baseline.mjs';
import { loadSettings, measure } from './lib/load.mjs';
import { startPlinth } from './lib/plinth.mjs';
import { compareRounds, wrkAvailable } from './lib/wrk.mjs';

if (!wrkAvailable()) {
  console.log('product-read: skipped: wrk is not installed (Debian/Ubuntu: apt-get install wrk; macOS: brew install wrk)');
  process.exit(0);
}
import { cpuMs, pidListeningOn } from './products-lib/cpu.mjs';
import { captureFullRoute, seedPublishedProduct } from './products-lib/seed.mjs';

const GOAL = 0.8;
const ORIGIN = 'https://shop.example';
const breakdown = process.argv.includes('--breakdown');

const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

const plinth = await startPlinth({
  bootstrap: { org: 'Product read bench', allowedDomains: [ORIGIN] },
  // The seed imports a GLB from a loopback server; the guarded fetcher refuses loopback otherwise.
  env: { PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1' },
});
let baseline;
try {
  const seedStart = Date.now();
  const id = await seedPublishedProduct(plinth);
  console.log(`seeded ${id} through the API (import, ready, publish) in ${Date.now() - seedStart} ms`);

  const headers = { authorization: `Bearer ${plinth.keys.publishable_key}`, origin: ORIGIN };
  const path = `/v1/products/${id}`;
  // One request first: a benchmark of 4xx answers would be fast and meaningless.
  const captured = await captureFullRoute(`${plinth.url}${path}`, headers);
  if (captured.status !== 200) throw new Error(`Plinth answered ${captured.status}: ${captured.body}`);
  const fields = Object.keys(JSON.parse(captured.body));
  if (fields.length !== 5) throw new Error(`expected the 5-field public projection, got ${fields.join(', ')}`);
  console.log(`answer: ${captured.body}`);
  console.log(`headers copied to the baseline: ${Object.keys(captured.headers).join(', ')}`);
  baseline = await startBaseline({ routes: [captured.route] });

  const settings = loadSettings();
  console.log(`load average before: ${load()}`);
  const { medianRatio: ratio } = await compareRounds({
    title: `GET /v1/products/{id}, publishable key + Origin (${Buffer.byteLength(captured.body)} bytes)`,
    baseline: { url: `${baseline.url}${path}`, headers },
    subject: { url: `${plinth.url}${path}`, headers },
  });
  console.log(`load average after: ${load()}`);
  console.log(`median ratio plinth/node:http requests/s: ${ratio.toFixed(2)}x (goal >= ${GOAL}x: ${ratio >= GOAL ? 'met' : 'NOT met'})`);

  if (breakdown) {
    // Each step stops earlier on the same path, so the differences tell what each piece costs.
    // CPU per request is read from the server process itself: on a shared machine requests/s
    // mostly reflects how much CPU the scheduler handed out, CPU per request the work done.
    const plinthPid = pidListeningOn(plinth.port);
    const baselinePid = pidListeningOn(baseline.port);
    const steps = [
      ['node:http baseline (same bytes)', baselinePid, { url: `${baseline.url}${path}`, headers }],
      ['unknown route (404)', plinthPid, { url: `${plinth.url}/v1/nope` }],
      ['GET /v1/health', plinthPid, { url: `${plinth.url}/v1/health` }],
      ['pk read, no Origin (403 after auth)', plinthPid, { url: `${plinth.url}${path}`, headers: { authorization: headers.authorization } }],
      ['pk read, unknown product (404)', plinthPid, { url: `${plinth.url}/v1/products/prod_00000000000000000000000000`, headers }],
      ['pk read (200)', plinthPid, { url: `${plinth.url}${path}`, headers }],
    ];
    console.log('\nbreakdown (each: warm-up, then measured with the server\'s CPU time read around it):');
    const width = Math.max(...steps.map(([label]) => label.length));
    for (const [label, pid, target] of steps) {
      await measure(target, { ...settings, duration: settings.warmup, warmup: 0 });
      const before = cpuMs(pid);
      const r = await measure(target, { ...settings, warmup: 0 });
      const cpuUs = ((cpuMs(pid) - before) * 1000) / r.requests;
      console.log(
        `  ${label.padEnd(width)}  ${Math.round(r.requestsPerSecond).toLocaleString('en-US').padStart(7)} req/s  ` +
          `p50 ${r.latency.p50.toFixed(3)} ms  CPU ${Number.isFinite(cpuUs) ? Math.round(cpuUs) : 'n/a'} µs/req  ` +
          `status ${Object.keys(r.statusCodes).join('/')}`,
      );
    }
    console.log(`load average after breakdown: ${load()}`);
  }
} finally {
  await Promise.all([plinth.stop(), baseline?.stop()]);
}
