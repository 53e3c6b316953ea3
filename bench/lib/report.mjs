// Side-by-side output. Every benchmark prints the same shape so results can be compared across
// benchmarks and machines, and pasted into bench/README.md as they are.
import { appendFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';

export function environment() {
  const cpu = cpus()[0]?.model?.trim() ?? 'unknown cpu';
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: availableParallelism(),
    cpuModel: cpu,
    memoryGb: Math.round(totalmem() / 2 ** 30),
  };
}

export function printEnvironment(settings) {
  const e = environment();
  console.log(`node ${e.node}, ${e.platform}, ${e.cpus} CPUs (${e.cpuModel}), ${e.memoryGb} GB RAM`);
  if (settings) {
    console.log(
      `autocannon: ${settings.connections} connections, pipelining ${settings.pipelining}, ` +
        `${settings.warmup} s warm-up then ${settings.duration} s measured, one server at a time`,
    );
  }
}

const int = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const ms = (n) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 3 : 1) : 'n/a');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows
    .map((r) => r.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('   '))
    .join('\n');
}

/**
 * Prints baseline and subject (Plinth) side by side with the ratio subject/baseline:
 * below 1x for requests/s and above 1x for latency mean Plinth is slower.
 */
export function printComparison({ title, baselineLabel = 'baseline', subjectLabel = 'plinth', baseline, subject }) {
  const rows = [
    ['', baselineLabel, subjectLabel, `${subjectLabel}/${baselineLabel}`],
    ['requests/s', int(baseline.requestsPerSecond), int(subject.requestsPerSecond), ratio(subject.requestsPerSecond, baseline.requestsPerSecond)],
    ['latency p50 (ms)', ms(baseline.latency.p50), ms(subject.latency.p50), ratio(subject.latency.p50, baseline.latency.p50)],
    ['latency p99 (ms)', ms(baseline.latency.p99), ms(subject.latency.p99), ratio(subject.latency.p99, baseline.latency.p99)],
    ['latency mean (ms)', ms(baseline.latency.mean), ms(subject.latency.mean), ratio(subject.latency.mean, baseline.latency.mean)],
    ['requests', int(baseline.requests), int(subject.requests), ''],
    ['errors + timeouts', int(baseline.errors + baseline.timeouts), int(subject.errors + subject.timeouts), ''],
    ['non-2xx', int(baseline.non2xx), int(subject.non2xx), ''],
  ];
  console.log(`\n${title}\n${table(rows)}\n`);
  for (const [label, r] of [[baselineLabel, baseline], [subjectLabel, subject]]) {
    // A fast stream of errors looks like a great result; say so loudly instead.
    if (r.errors + r.timeouts > 0 || r.non2xx > 0) {
      console.log(`WARNING: ${label} had ${r.errors} errors, ${r.timeouts} timeouts, status codes ${JSON.stringify(r.statusCodes)}`);
    }
  }
}

/** Appends one JSON line per comparison to $BENCH_RESULTS_FILE, when set, for collecting runs. */
export function recordResult(name, data) {
  const file = process.env.BENCH_RESULTS_FILE;
  if (!file) return;
  appendFileSync(file, JSON.stringify({ name, at: new Date().toISOString(), environment: environment(), ...data }) + '\n');
}
