// GET /v1/products/{id} with a publishable key from an allowed origin (what the embed does on every
// page view) against a bare node:http server sending the same body and headers, captured from
// Plinth once. Plinth authenticates the key (cached 5 s), checks the origin, reads the product and
// its images from SQLite and builds the five-field public projection on every request.
// Goal: at least 0.7x the baseline's requests/s.
//
//   npm run build && node bench/product-read.mjs [--breakdown]
//
// --breakdown also measures, on Plinth only, requests that stop earlier on the same path (an
// unknown route, /v1/health, a 401 and a 403), to show where the time per request goes.
import { loadavg } from 'node:os';
import { startBaseline } from './lib/baseline.mjs';
import { compare } from './lib/compare.mjs';
import { loadSettings, measure } from './lib/load.mjs';
import { startPlinth } from './lib/plinth.mjs';
import { captureFullRoute, seedPublishedProduct } from './products-lib/seed.mjs';

const GOAL = 0.7;
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
  const { baseline: b, subject: s } = await compare({
    name: 'product-read',
    title: `GET /v1/products/{id}, publishable key + Origin (${Buffer.byteLength(captured.body)} bytes)`,
    baselineLabel: 'node:http',
    baseline: { url: `${baseline.url}${path}`, headers },
    subject: { url: `${plinth.url}${path}`, headers },
    settings,
  });
  const ratio = s.requestsPerSecond / b.requestsPerSecond;
  console.log(`load average after: ${load()}`);
  console.log(`ratio plinth/node:http requests/s: ${ratio.toFixed(2)}x (goal >= ${GOAL}x: ${ratio >= GOAL ? 'met' : 'NOT met'})`);

  if (breakdown) {
    // Each step drops one piece of the work of the real request. The server is one thread kept
    // busy by the connections, so 1/throughput approximates its time per request, and the
    // differences between steps tell what each piece costs.
    const steps = [
      ['unknown route (404, no hooks with work)', { url: `${plinth.url}/v1/nope` }],
      ['GET /v1/health (public route, probes)', { url: `${plinth.url}/v1/health` }],
      ['pk read, no Origin (403 after auth)', { url: `${plinth.url}${path}`, headers: { authorization: headers.authorization } }],
      ['pk read, unknown product (404 after one query)', { url: `${plinth.url}/v1/products/prod_00000000000000000000000000`, headers }],
      ['pk read (200)', { url: `${plinth.url}${path}`, headers }],
    ];
    const rows = [];
    for (const [label, target] of steps) {
      const r = await measure(target, settings);
      rows.push([label, r.requestsPerSecond, r.latency.p50, Object.keys(r.statusCodes).join('/')]);
    }
    console.log('\nbreakdown (plinth only, same settings):');
    const width = Math.max(...rows.map((r) => r[0].length));
    for (const [label, rps, p50, codes] of rows) {
      console.log(
        `  ${label.padEnd(width)}  ${Math.round(rps).toLocaleString('en-US').padStart(7)} req/s  p50 ${p50.toFixed(3)} ms  ` +
          `~${Math.round(1e6 / rps)} µs/req  status ${codes}`,
      );
    }
    console.log(`  node:http baseline                ${Math.round(b.requestsPerSecond).toLocaleString('en-US')} req/s`);
    console.log(`load average after breakdown: ${load()}`);
  }
} finally {
  await Promise.all([plinth.stop(), baseline?.stop()]);
}
