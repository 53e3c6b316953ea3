// POST /v1/beacon with one event per request, as the embed sends them, against a bare node:http
// server that parses the same body and answers the same 202 receipt without storing anything.
// Plinth authenticates the publishable key, checks its origin, validates the body and answers only
// after the event is committed (SQLite, WAL, synchronous=FULL), with concurrent beacons sharing one
// transaction (group commit). Goal: at least 0.5x the baseline's requests/s.
//
// 100 connections by default, not the usual 10: beacons come from many browsers at once, and a
// server that answers only once an event is on disk can serve N waiting clients at most
// N / (commit time) times a second. With 10, this benchmark mostly measures how long each answer
// waits for its commit; the disk's fsync time is printed first so results can be read against it.
//
//   npm run build && node bench/beacon.mjs        (BENCH_CONNECTIONS, BENCH_DURATION, … as in bench/lib/load.mjs)
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { durableCommitMs } from './analytics-lib/disk.mjs';
import { startBaseline } from './lib/baseline.mjs';
import { compare } from './lib/compare.mjs';
import { loadSettings } from './lib/load.mjs';
import { startPlinth } from './lib/plinth.mjs';

const GOAL = 0.5;
const ORIGIN = 'https://shop.example';

const plinth = await startPlinth({ bootstrap: { org: 'Beacon bench', allowedDomains: [ORIGIN] } });
let baseline;
try {
  baseline = await startBaseline({ module: fileURLToPath(new URL('./analytics-lib/beacon-baseline.mjs', import.meta.url)) });
  const request = {
    method: 'POST',
    headers: { authorization: `Bearer ${plinth.keys.publishable_key}`, origin: ORIGIN, 'content-type': 'application/json' },
    body: JSON.stringify({ events: [{ type: 'view', product_id: 'prod_bench', viewer_id: 'viewer_bench' }] }),
  };

  // One request first: a benchmark of 4xx answers would be fast and meaningless.
  const probe = await fetch(`${plinth.url}/v1/beacon`, request);
  const receipt = await probe.text();
  if (probe.status !== 202) throw new Error(`Plinth answered ${probe.status}: ${receipt}`);

  const settings = loadSettings({ connections: Number(process.env.BENCH_CONNECTIONS || 100) });
  const fsyncMs = durableCommitMs(tmpdir());
  console.log(
    `disk: one durable SQLite commit takes ${fsyncMs.toFixed(2)} ms here (median of 100), so ${settings.connections} clients ` +
      `waiting for a stored event can be answered at most ${Math.round(settings.connections / (fsyncMs / 1000)).toLocaleString('en-US')} times/s`,
  );
  const { baseline: b, subject: s } = await compare({
    name: 'beacon',
    title: `POST /v1/beacon, 1 event per request (answer ${receipt})`,
    baselineLabel: 'node:http',
    baseline: { url: `${baseline.url}/v1/beacon`, ...request },
    subject: { url: `${plinth.url}/v1/beacon`, ...request },
    settings,
  });

  const usage = await fetch(`${plinth.url}/v1/usage?granularity=hour&start=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`, {
    headers: { authorization: `Bearer ${plinth.keys.secret_key}` },
  }).then((r) => r.json());
  const ratio = s.requestsPerSecond / b.requestsPerSecond;
  console.log(`events counted by GET /v1/usage afterwards: ${usage.totals?.view?.toLocaleString('en-US')} (every 202 is a stored event, warm-up included)`);
  console.log(`ratio plinth/node:http requests/s: ${ratio.toFixed(2)}x (goal >= ${GOAL}x: ${ratio >= GOAL ? 'met' : 'NOT met'})`);
} finally {
  await Promise.all([plinth.stop(), baseline?.stop()]);
}
