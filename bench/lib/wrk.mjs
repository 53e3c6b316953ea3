// Load from `wrk` in its own process (never inside the benchmark's or a server's process), in alternating rounds:
// baseline, Plinth, baseline, Plinth, … so that drift on a shared machine hits both alike. Each round prints both
// servers' figures and their ratio; the verdict is the median ratio.
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuMs, pidListeningOn } from '../products-lib/cpu.mjs';
import { tempDir } from './processes.mjs';

export function wrkAvailable() {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version exits 1 after printing its banner.
    return err.status === 1;
  }
}

/** Settings from the environment, defaults as the issue measured them: 1 thread, 50 connections, 6 s, 3 rounds. */
export function wrkSettings(overrides = {}) {
  const num = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback);
  return {
    threads: num('BENCH_THREADS', 1),
    connections: num('BENCH_CONNECTIONS', 50),
    duration: num('BENCH_DURATION', 6),
    warmup: num('BENCH_WARMUP', 2),
    rounds: num('BENCH_ROUNDS', 3),
    ...overrides,
  };
}

let scriptDir = null;

/** A Lua script that sets the method, headers and body, and counts non-2xx answers. */
function script({ method = 'GET', headers = {}, body = null }) {
  scriptDir ??= tempDir('plinth-wrk-').path;
  const lua = [
    `wrk.method = ${JSON.stringify(method)}`,
    ...Object.entries(headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(String(v))}`),
    body === null ? '' : `wrk.body = ${luaString(body)}`,
    "non2xx = 0",
    'local threads = {}',
    'function setup(thread) table.insert(threads, thread) end',
    'function response(status, headers, body) if status < 200 or status > 299 then non2xx = non2xx + 1 end end',
    'function done(summary, latency, requests)',
    '  local n = 0',
    '  for _, t in ipairs(threads) do n = n + (t:get("non2xx") or 0) end',
    '  io.write(string.format("PLINTH_RESULT %d %d %.3f %.3f %.3f\\n", summary.requests, n, latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.mean / 1000))',
    'end',
  ].join('\n');
  const file = join(scriptDir, `s${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(file, lua);
  return file;
}

function luaString(s) {
  return `"${[...Buffer.from(s)].map((b) => `\\${b}`).join('')}"`;
}

function runWrk(target, settings, seconds) {
  const file = script(target);
  const args = ['-t', String(settings.threads), '-c', String(settings.connections), '-d', `${seconds}s`, '--timeout', '10s', '-s', file, target.url];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
      const result = /PLINTH_RESULT (\d+) (\d+) ([\d.]+) ([\d.]+) ([\d.]+)/.exec(out);
      const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      if (code !== 0 || !rps || !result) return reject(new Error(`wrk failed (exit ${code}):\n${out}`));
      resolve({
        requestsPerSecond: Number(rps[1]),
        requests: Number(result[1]),
        non2xx: Number(result[2]),
        // non2xx counted per thread is only visible through wrk's own line when threads > 1
        latency: { p50: Number(result[3]), p99: Number(result[4]), mean: Number(result[5]) },
        socketErrors: errors ? errors.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
      });
    });
  });
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');

/**
 * Measures baseline and subject in alternating rounds after one warm-up each; prints every round and returns
 * { rounds: [{ baseline, subject, ratio }], medianRatio }.
 */
export async function compareRounds({ title, baseline, subject, baselineLabel = 'node:http', subjectLabel = 'plinth', settings = wrkSettings() }) {
  console.log(`\n${title}`);
  console.log(`wrk in its own process: ${settings.threads} thread, ${settings.connections} connections, ${settings.duration} s per run, ${settings.rounds} alternating rounds after a ${settings.warmup} s warm-up each`);
  if (settings.warmup > 0) {
    await runWrk(baseline, settings, settings.warmup);
    await runWrk(subject, settings, settings.warmup);
  }
  // On a shared machine requests/s mostly says how much CPU the scheduler handed out; each server's own CPU
  // time per request (from /proc, Linux only) says how much work a request is, and moves only with the code.
  const pids = { baseline: pidListeningOn(new URL(baseline.url).port), subject: pidListeningOn(new URL(subject.url).port) };
  const measured = async (target, pid) => {
    const before = cpuMs(pid);
    const r = await runWrk(target, settings, settings.duration);
    return { ...r, cpuUsPerRequest: ((cpuMs(pid) - before) * 1000) / r.requests };
  };
  const cpu = (r) => (Number.isFinite(r.cpuUsPerRequest) ? `, ${Math.round(r.cpuUsPerRequest)} µs CPU/req` : '');
  const rounds = [];
  for (let i = 0; i < settings.rounds; i++) {
    const b = await measured(baseline, pids.baseline);
    const s = await measured(subject, pids.subject);
    const ratio = s.requestsPerSecond / b.requestsPerSecond;
    rounds.push({ baseline: b, subject: s, ratio, cpuRatio: b.cpuUsPerRequest / s.cpuUsPerRequest });
    console.log(
      `round ${i + 1}: ${baselineLabel} ${fmt(b.requestsPerSecond)} req/s (p99 ${b.latency.p99.toFixed(2)} ms${cpu(b)}), ` +
        `${subjectLabel} ${fmt(s.requestsPerSecond)} req/s (p99 ${s.latency.p99.toFixed(2)} ms${cpu(s)}, ${s.non2xx} non-2xx), ratio ${ratio.toFixed(2)}x`,
    );
    if (s.non2xx || s.socketErrors) console.log(`WARNING: ${subjectLabel} had ${s.non2xx} non-2xx answers and ${s.socketErrors} socket errors`);
  }
  const sorted = rounds.map((r) => r.ratio).sort((a, b) => a - b);
  const medianRatio = sorted[Math.floor(sorted.length / 2)];
  console.log(`median ratio ${subjectLabel}/${baselineLabel}: ${medianRatio.toFixed(2)}x`);
  const cpuRatios = rounds.map((r) => r.cpuRatio).filter(Number.isFinite).sort((a, b) => a - b);
  const medianCpuRatio = cpuRatios.length ? cpuRatios[Math.floor(cpuRatios.length / 2)] : NaN;
  if (cpuRatios.length) {
    console.log(`median CPU-per-request ratio ${baselineLabel}/${subjectLabel}: ${medianCpuRatio.toFixed(2)}x (what requests/s would be on an idle machine with the server CPU-bound)`);
  }
  return { rounds, medianRatio, medianCpuRatio };
}
