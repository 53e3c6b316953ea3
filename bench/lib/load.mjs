// Load generation with autocannon, in this (the benchmark's) process; servers live in children.
import autocannon from 'autocannon';

/** Defaults, overridable per run from the environment so `npm run bench` needs no flags. */
export function loadSettings(overrides = {}) {
  const num = (name, fallback) => {
    const raw = process.env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number >= 0, got "${raw}"`);
    return n;
  };
  return {
    connections: num('BENCH_CONNECTIONS', 10),
    duration: num('BENCH_DURATION', 10),
    warmup: num('BENCH_WARMUP', 3),
    pipelining: num('BENCH_PIPELINING', 1),
    ...overrides,
  };
}

function runAutocannon(opts, onResponse) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
    if (onResponse) instance.on('response', onResponse);
  });
}

/** Latencies as floats: autocannon's own histogram rounds to whole milliseconds, too coarse here. */
class LatencySamples {
  constructor() {
    this.values = new Float64Array(1 << 16);
    this.length = 0;
  }
  add(ms) {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = ms;
  }
  summary() {
    const sorted = this.values.subarray(0, this.length).sort();
    const at = (p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN);
    let sum = 0;
    for (const v of sorted) sum += v;
    return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.length ? sorted[sorted.length - 1] : NaN, mean: sum / sorted.length };
  }
}

/**
 * Warms the target up (JIT, connection pools, caches), then measures it.
 *
 * target: { url, method?, headers?, body?, requests? } — anything autocannon accepts per request;
 *   `requests` allows varying requests (e.g. a different product id each time).
 * settings: from loadSettings().
 * Returns { requestsPerSecond, latency: { p50, p90, p99, max, mean } in ms, requests, errors, timeouts,
 *   non2xx, statusCodes, bytesPerSecond, duration }.
 */
export async function measure(target, settings = loadSettings()) {
  const base = {
    ...target,
    connections: settings.connections,
    pipelining: settings.pipelining,
  };
  if (settings.warmup > 0) await runAutocannon({ ...base, duration: settings.warmup });

  const samples = new LatencySamples();
  const result = await runAutocannon({ ...base, duration: settings.duration }, (_client, _status, _bytes, ms) => samples.add(ms));
  return {
    requestsPerSecond: result.requests.total / result.duration,
    latency: samples.summary(),
    requests: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
    bytesPerSecond: result.throughput.total / result.duration,
    duration: result.duration,
  };
}
