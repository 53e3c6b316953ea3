#!/usr/bin/env node
// `npm run bench [-- NAME...]`: runs every bench/*.mjs in turn, or only the named ones.
// Each benchmark gets its own process, so one that crashes or leaks cannot skew the next.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const available = readdirSync(BENCH_DIR)
  .filter((f) => f.endsWith('.mjs'))
  .map((f) => basename(f, '.mjs'))
  .sort();

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(
    `Usage: npm run bench [-- NAME...]\n\nBenchmarks: ${available.join(', ')}\n\n` +
      'Environment: BENCH_CONNECTIONS (10), BENCH_DURATION seconds (10), BENCH_WARMUP seconds (3),\n' +
      'BENCH_PIPELINING (1), BENCH_RESULTS_FILE (append one JSON line per comparison).',
  );
  process.exit(0);
}

// Accept "http-baseline", "http-baseline.mjs" or "bench/http-baseline.mjs".
const wanted = args.map((a) => basename(a).replace(/\.mjs$/, ''));
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length) {
  console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${available.join(', ') || '(none)'}`);
  process.exit(2);
}
const selected = wanted.length ? wanted : available;

let current = null;
for (const signal of ['SIGINT', 'SIGTERM']) {
  // Forward, so the benchmark can stop its servers; it cleans up and exits, then so do we.
  process.on(signal, () => current?.kill(signal));
}

const failed = [];
for (const name of selected) {
  console.log(`\n=== ${name} ===`);
  const code = await new Promise((resolve) => {
    current = spawn(process.execPath, [join(BENCH_DIR, `${name}.mjs`)], { stdio: 'inherit' });
    current.on('exit', (c, signal) => resolve(signal ? 128 : c));
    current.on('error', (err) => {
      console.error(err);
      resolve(1);
    });
  });
  current = null;
  if (code !== 0) {
    failed.push(name);
    if (code >= 128) break;
  }
}

if (failed.length) {
  console.error(`\nFailed: ${failed.join(', ')}`);
  process.exit(1);
}
