// GET /v1/usage?group_by=product over 10 million events in a 30-day window, on SQLite: the report
// a dashboard opens first. Plinth reads rollups only (hourly and daily counts per product), so the
// cost depends on how many rollup rows the window holds, not on the number of events.
// Compared side by side with a bare node:http server sending the same answer from memory.
// Goal: p50 latency at most 50 ms.
//
//   npm run build && node bench/usage.mjs     (BENCH_CONNECTIONS defaults to 1 here: latency, not load)
import { join } from 'node:path';
import { generateUsage } from './analytics-lib/usage-data.mjs';
import { captureRoute, startBaseline } from './lib/baseline.mjs';
import { compare } from './lib/compare.mjs';
import { loadSettings, measure } from './lib/load.mjs';
import { startPlinth } from './lib/plinth.mjs';

const GOAL_MS = 50;
const EVENTS = Number(process.env.BENCH_USAGE_EVENTS ?? 10_000_000);
const DAY = 86_400_000;

const plinth = await startPlinth({ bootstrap: { org: 'Usage bench' } });
let baseline;
try {
  // The default window: the 30 UTC days ending with today. Events fill it up to the current hour.
  const endMs = Date.now();
  const startMs = Math.ceil(endMs / DAY) * DAY - 30 * DAY;
  const data = {
    file: join(plinth.dataDir, 'plinth.db'),
    orgId: plinth.keys.org_id,
    events: EVENTS,
    products: 2_000,
    unknownSubjects: 500,
    unknownShare: 0.05,
    internalShare: 0.02,
    startMs,
    endMs,
  };
  const started = Date.now();
  const made = generateUsage(data);
  console.log(
    `generated ${EVENTS.toLocaleString('en-US')} events over ${made.hours} hours: ${data.products} products (Zipf-like popularity) ` +
      `+ ${data.unknownSubjects} ids with no product row (${data.unknownShare * 100}% of events), ${data.internalShare * 100}% internal; ` +
      `80/14/6% view/ar_enter/ar_session_ended → ${made.rows.hourly.toLocaleString('en-US')} hourly + ` +
      `${made.rows.daily.toLocaleString('en-US')} daily rollup rows (raw event rows: none, usage never reads them) in ${Date.now() - started} ms`,
  );

  const headers = { authorization: `Bearer ${plinth.keys.secret_key}` };
  const url = `${plinth.url}/v1/usage?group_by=product`;
  const answer = await fetch(`${url}&include_internal=true`, { headers }).then((r) => r.json());
  const counted = answer.totals.view + answer.totals.ar_enter + answer.totals.ar_session_ended;
  if (counted !== EVENTS) throw new Error(`usage counts ${counted} events, ${EVENTS} were generated`);
  const route = await captureRoute(url, { headers });
  if (route.status !== 200) throw new Error(`Plinth answered ${route.status}: ${route.body}`);
  const external = JSON.parse(route.body).totals;
  console.log(`check: include_internal=true totals add up to ${counted.toLocaleString('en-US')}; default totals ${JSON.stringify(external)} match the generator: ${
    external.view === made.external.view && external.ar_enter === made.external.ar_enter ? 'yes' : 'NO'}`);
  baseline = await startBaseline({ routes: [route] });

  const settings = loadSettings({ connections: Number(process.env.BENCH_CONNECTIONS ?? 1) });
  const { subject } = await compare({
    name: 'usage',
    title: `GET /v1/usage?group_by=product, 30 days by day, ${EVENTS.toLocaleString('en-US')} events (${Buffer.byteLength(route.body)} bytes)`,
    baselineLabel: 'node:http',
    baseline: { url: `${baseline.url}/v1/usage`, headers },
    subject: { url, headers },
    settings,
  });

  // The same 30 days by hour read the hourly rollup, about 24 times as many rows.
  const hourly = await measure({ url: `${url}&granularity=hour`, headers }, settings);
  console.log(`same window, granularity=hour (720 buckets; by_product reads daily rows plus the hourly rows of the partial days at each end): p50 ${hourly.latency.p50.toFixed(1)} ms, p99 ${hourly.latency.p99.toFixed(1)} ms, ${Math.round(hourly.requestsPerSecond)} req/s`);
  const p50 = subject.latency.p50;
  console.log(`p50 latency: ${p50.toFixed(1)} ms (goal <= ${GOAL_MS} ms: ${p50 <= GOAL_MS ? 'met' : 'NOT met'})`);
} finally {
  await Promise.all([plinth.stop(), baseline?.stop()]);
}
