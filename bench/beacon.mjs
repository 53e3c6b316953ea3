// POST /v1/beacon with 1 and with 20 events per request (the embed batches up to 20), against a bare node:http
// server that parses the same body and answers the same 202 receipt without storing anything.
// Plinth authenticates the publishable key, checks its origin, validates the body and answers only
// after the event is committed (SQLite, WAL; the beacon's transaction synchronous=NORMAL, the WAL flushed within 1 s), with concurrent beacons
// sharing one transaction (group commit). Load comes from wrk in its own process, in alternating rounds. Goal: a median ratio of
// at least 0.8x the baseline's requests/s at 1 event per request; events/s is printed for both batch sizes, and
// after the run every acknowledged event must be counted by GET /v1/usage.
//
// 50 connections by default, not the usual 10: beacons come from many browsers at once, and a server
// that answers only once an event is committed can serve N waiting clients at most N / (commit time) times a
// second. The disk's durable commit time is printed first: beacon batches no longer wait for it (the WAL is
// flushed within a second), every other write does.
//
// A third run sends 20 events of section 18's mixed types per request (views, interactions, variant changes, hotspot
// opens, AR call-to-action taps and a conversion with its value, all in an experiment's arm): they go through the same
// checks and group commit and should cost no more than 20 views: Plinth's median CPU per request is printed for each.
// Two more comparisons alternate 20 views and 20 mixed events on the same server, once with their own bodies and once
// with the views' viewer ids padded to the mixed body's length, so only the event types differ.
//
//   npm run build && node bench/beacon.mjs        (BENCH_CONNECTIONS, BENCH_DURATION, … as in bench/lib/load.mjs)
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { durableCommitMs } from './analytics-lib/disk.mjs';
import { startBaseline } from './lib/baseline.mjs';
import { startPlinth } from './lib/plinth.mjs';
import { compareRounds, wrkAvailable, wrkSettings } from './lib/wrk.mjs';

if (!wrkAvailable()) {
  console.log('beacon: skipped: wrk is not installed (Debian/Ubuntu: apt-get install wrk; macOS: brew install wrk)');
  process.exit(0);
}

const GOAL = 0.8;
const ORIGIN = 'https://shop.example';

const plinth = await startPlinth({ bootstrap: { org: 'Beacon bench', allowedDomains: [ORIGIN] } });
let baseline;
try {
  baseline = await startBaseline({ module: fileURLToPath(new URL('./analytics-lib/beacon-baseline.mjs', import.meta.url)) });
  const view = () => ({ type: 'view', product_id: 'prod_bench', viewer_id: 'viewer_bench' });
  const MIXED = ['view', 'interaction', 'variant_change', 'hotspot_open', 'ar_cta_tap', 'ar_enter', 'view', 'interaction', 'view', 'conversion'];
  const mixed = (i) => {
    const type = MIXED[i % MIXED.length];
    // One page's events: one viewer, in the one arm the element assigned it (a viewer never sees both).
    const base = { type, product_id: 'prod_bench', viewer_id: 'viewer_bench', experiment_id: 'expt_bench', arm: '3d' };
    return type === 'conversion' ? { ...base, name: 'add_to_cart', value: 49.9, currency: 'EUR' } : base;
  };
  const requestFor = (count, kind = 'views') => ({
    method: 'POST',
    headers: { authorization: `Bearer ${plinth.keys.publishable_key}`, origin: ORIGIN, 'content-type': 'application/json' },
    body: JSON.stringify({ events: Array.from({ length: count }, (_, i) => (kind === 'mixed' ? mixed(i) : view())) }),
  });

  // One request first: a benchmark of 4xx answers would be fast and meaningless.
  const probe = await fetch(`${plinth.url}/v1/beacon`, requestFor(1));
  const receipt = await probe.text();
  if (probe.status !== 202) throw new Error(`Plinth answered ${probe.status}: ${receipt}`);
  let acknowledged = 1;

  const settings = wrkSettings({ connections: Number(process.env.BENCH_CONNECTIONS || 50) });
  const fsyncMs = durableCommitMs(tmpdir());
  console.log(
    `disk: one durable SQLite commit takes ${fsyncMs.toFixed(2)} ms here (median of 100); a beacon batch does not wait ` +
      `for it (the WAL file is flushed within a second), so ${settings.connections} clients are bounded by the commit's statements, not the disk`,
  );
  const results = {};
  for (const [label, count, kind] of [['1', 1, 'views'], ['20', 20, 'views'], ['20 mixed', 20, 'mixed']]) {
    const request = requestFor(count, kind);
    const r = await compareRounds({
      title: `POST /v1/beacon, ${count} ${kind === 'mixed' ? 'mixed ' : ''}event${count > 1 ? 's' : ''} per request (answer ${receipt})`,
      baseline: { url: `${baseline.url}/v1/beacon`, ...request },
      subject: { url: `${plinth.url}/v1/beacon`, ...request },
      settings,
    });
    // Warm-up runs are acknowledged too; count them from the rounds' totals plus what wrk reported for warm-ups
    // is unknown, so the check below is counted >= acknowledged-in-rounds.
    for (const round of r.rounds) acknowledged += (round.subject.requests - round.subject.non2xx) * count;
    const eventsPerSecond = r.rounds.map((x) => x.subject.requestsPerSecond * count).sort((a, b) => a - b)[Math.floor(r.rounds.length / 2)];
    const cpu = r.rounds.map((x) => x.subject.cpuUsPerRequest).filter(Number.isFinite).sort((a, b) => a - b)[Math.floor(r.rounds.length / 2)];
    const baselineCpu = r.rounds.map((x) => x.baseline.cpuUsPerRequest).filter(Number.isFinite).sort((a, b) => a - b)[Math.floor(r.rounds.length / 2)];
    results[label] = { ratio: r.medianRatio, eventsPerSecond, cpu, baselineCpu };
    console.log(`plinth stored ${Math.round(eventsPerSecond).toLocaleString('en-US')} events/s at ${label} per request (median round)`);
  }

  // The runs above come one after the other, so the mixed one meets a database already holding every view stored
  // before it. The same two bodies alternated on the same server compare them at the same database size.
  const side = await compareRounds({
    title: 'POST /v1/beacon, 20 views against 20 mixed events per request, alternated on the same Plinth',
    baseline: { url: `${plinth.url}/v1/beacon`, ...requestFor(20) },
    subject: { url: `${plinth.url}/v1/beacon`, ...requestFor(20, 'mixed') },
    baselineLabel: '20 views',
    subjectLabel: '20 mixed',
    settings,
  });
  for (const round of side.rounds) acknowledged += (round.subject.requests - round.subject.non2xx) * 20 + (round.baseline.requests - round.baseline.non2xx) * 20;

  // A mixed body is longer than one of views (an experiment id and arm on every event, a conversion's name, value
  // and currency), and every byte costs even node:http. The same bytes as views, their viewer ids lengthened to
  // make up the difference, leave only what the types themselves cost: their checks and what they store.
  const mixedRequest = requestFor(20, 'mixed');
  const sameSize = { ...mixedRequest, body: viewsOfLength(20, Buffer.byteLength(mixedRequest.body), view) };
  const even = await compareRounds({
    title: `POST /v1/beacon, 20 views against 20 mixed events in bodies of the same ${Buffer.byteLength(sameSize.body)} bytes, alternated on the same Plinth`,
    baseline: { url: `${plinth.url}/v1/beacon`, ...sameSize },
    subject: { url: `${plinth.url}/v1/beacon`, ...mixedRequest },
    baselineLabel: '20 views',
    subjectLabel: '20 mixed',
    settings,
  });
  for (const round of even.rounds) acknowledged += (round.subject.requests - round.subject.non2xx) * 20 + (round.baseline.requests - round.baseline.non2xx) * 20;

  const usage = await fetch(`${plinth.url}/v1/usage?granularity=hour&start=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`, {
    headers: { authorization: `Bearer ${plinth.keys.secret_key}` },
  }).then((r) => r.json());
  const counted = Object.values(usage.totals ?? {}).reduce((n, c) => n + c, 0);
  console.log(`\nacknowledged in measured rounds: ${acknowledged.toLocaleString('en-US')}; counted by GET /v1/usage: ${counted.toLocaleString('en-US')} (warm-ups included): ${counted >= acknowledged ? 'nothing lost' : 'EVENTS LOST'}`);
  console.log(`batching: 20 events per request stores ${(results['20'].eventsPerSecond / results['1'].eventsPerSecond).toFixed(1)}x the events/s of 1 per request`);
  console.log(`mixed types: 20 mixed events per request store ${(results['20 mixed'].eventsPerSecond / results['20'].eventsPerSecond).toFixed(2)}x the events/s of 20 views`);
  if (results['20'].cpu !== undefined) {
    console.log(`mixed types: plinth's CPU per request ${Math.round(results['20 mixed'].cpu)} µs for 20 mixed events, ${Math.round(results['20'].cpu)} µs for 20 views (${(results['20 mixed'].cpu / results['20'].cpu).toFixed(2)}x)`);
  }
  console.log(`mixed types, alternated on one server: CPU per request of 20 mixed / 20 views ${(1 / side.medianCpuRatio).toFixed(2)}x; the bodies alone cost node:http ${(results['20 mixed'].baselineCpu / results['20'].baselineCpu).toFixed(2)}x`);
  console.log(`mixed types, alternated on one server, bodies of the same length: CPU per request of 20 mixed / 20 views ${(1 / even.medianCpuRatio).toFixed(2)}x (rounds ${even.rounds.map((r) => (1 / r.cpuRatio).toFixed(2)).join(', ')})`);
  console.log(`median ratio plinth/node:http requests/s at 1 event: ${results['1'].ratio.toFixed(2)}x (goal >= ${GOAL}x: ${results['1'].ratio >= GOAL ? 'met' : 'NOT met'})`);
  if (counted < acknowledged) process.exitCode = 1;
} finally {
  await Promise.all([plinth.stop(), baseline?.stop()]);
}

/** A body of `count` events from `view` exactly `bytes` long (their viewer ids padded), to weigh event types at equal size. */
function viewsOfLength(count, bytes, view) {
  const padded = (pad) => {
    const event = view();
    return { ...event, viewer_id: `${event.viewer_id}${'_'.repeat(pad)}` };
  };
  const body = (pads) => JSON.stringify({ events: pads.map(padded) });
  const missing = bytes - Buffer.byteLength(body(Array(count).fill(0)));
  if (missing < 0) throw new Error(`views are already longer than ${bytes} bytes`);
  const pads = Array.from({ length: count }, (_, i) => Math.floor(missing / count) + (i < missing % count ? 1 : 0));
  return body(pads);
}
