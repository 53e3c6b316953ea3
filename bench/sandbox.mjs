// The media sandbox's cost per call: the same small image step (decode, check, mask, analyse a
// 640×480 JPEG) run in this process and through the sandbox (a warm child, Node IPC with advanced
// serialisation), one call at a time, plus the bare round trip of 1 MB and 10 MB Buffers.
//
//   npm run build && node bench/sandbox.mjs [--calls=40]
//
// Prints wall time per call, the sandboxed/in-process ratio, the overhead per call in ms, and the
// peak RSS of this process and of the child.
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { runMediaOp } from '@plinth/media';
import sharp from 'sharp';
import { createLogger } from '../packages/server/dist/logger.js';
import { childEntry, MediaSandbox } from '../packages/server/dist/platform/sandbox/media-sandbox.js';
import { formatTable, watchRss } from './export-lib/measure.mjs';
import { printEnvironment } from './lib/report.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const calls = Number(args.calls ?? 40);
const entry = childEntry();
if (!entry) {
  console.error('@plinth/media is not built: run `npm run build` first (the sandbox forks its compiled child).');
  process.exit(1);
}

printEnvironment();
const photo = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#f4f4f4' } })
  .composite([{ input: await sharp({ create: { width: 300, height: 260, channels: 3, background: '#2050c0' } }).png().toBuffer(), left: 170, top: 110 }])
  .jpeg({ quality: 88 })
  .toBuffer();
const host = { fetchBytes: async () => Buffer.alloc(0), progress: () => {} };
const sandbox = new MediaSandbox(entry, { memoryMb: 2048, timeoutS: 120, stackKb: 2048, children: 1 }, createLogger('silent'));

let childPeakMb = 0;
async function sampleChild() {
  for (const pid of sandbox.pids()) {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const kb = /VmHWM:\s+(\d+)/.exec(status);
    if (kb) childPeakMb = Math.max(childPeakMb, Number(kb[1]) / 1024);
  }
}

async function time(label, fn) {
  for (let i = 0; i < 3; i++) await fn(); // warm: modules loaded, the child started
  const rss = watchRss();
  const started = performance.now();
  for (let i = 0; i < calls; i++) await fn();
  const perCall = (performance.now() - started) / calls;
  return { label, perCall, peakMb: rss.stop() / 2 ** 20 };
}

const inProcess = await time('image.process in process', () => runMediaOp('image.process', { data: photo }, host));
const sandboxed = await time('image.process in the sandbox', () => sandbox.run('image.process', { data: photo }));
await sampleChild();
const echo1 = await time('1 MB round trip', () => sandbox.run('sandbox.probe', { echo: Buffer.alloc(1 << 20, 7) }));
const echo10 = await time('10 MB round trip', () => sandbox.run('sandbox.probe', { echo: Buffer.alloc(10 << 20, 7) }));
await sampleChild();
await sandbox.close();

const f = (n) => n.toFixed(2);
console.log(`\n${calls} calls each, one at a time, after 3 warm-up calls`);
console.log(
  formatTable([
    ['', 'ms per call', 'peak RSS of this process (MB)'],
    ...[inProcess, sandboxed, echo1, echo10].map((r) => [r.label, f(r.perCall), r.peakMb.toFixed(0)]),
  ]),
);
console.log(`\nsandboxed / in-process: ${(sandboxed.perCall / inProcess.perCall).toFixed(2)}x; overhead ${f(sandboxed.perCall - inProcess.perCall)} ms per call`);
console.log(`child peak RSS ${childPeakMb.toFixed(0)} MB`);
