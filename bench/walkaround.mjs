// A handheld walk-around through the whole built-in generator, as a worker runs it: camera recovery (COLMAP),
// the held-out gate, carving, stereo, texture. Goal (DESIGN section 10): 36 photos at 1024 px give a model in at
// most 3 minutes on 2 cores. Prints the wall time per step, the ratio to the goal, the peak resident memory of
// this process with its children (COLMAP, stereo threads) and what the model's record says. The CPU seconds per
// step (user + system of this process, its threads and its children) are the steadier figure on a shared machine:
// wall time there mostly says how much CPU the scheduler handed out.
//
//   npm run build && node bench/walkaround.mjs [--photos=36] [--width=1024] [--height=768] [--rounds=1]
//
// The photos are the tests' synthetic capture (a textured product on a textured table, each photo at its own
// distance, height, aim and roll, drawn by three.js in headless Chromium, with exact masks), bundled here from
// the media package's test support with esbuild; they are rendered first and not timed.
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { createBuiltinGenerator } from '@plinth/media';
import { formatTable } from './export-lib/measure.mjs';
import { treeCpuSeconds, treeMb } from './lib/memory.mjs';
import { printEnvironment, recordResult } from './lib/report.mjs';

const GOAL_SECONDS = 180;
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? 'true']));
const photos = Number(args.photos ?? 36);
const width = Number(args.width ?? 1024);
const height = Number(args.height ?? 768);
const rounds = Number(args.rounds ?? 1);
const chromiumPath = process.env.PLINTH_CHROMIUM_PATH ?? '/usr/bin/chromium';

async function loadFixtures() {
  const entry = fileURLToPath(new URL('../packages/media/src/generate/posed-fixtures.test-support.ts', import.meta.url));
  const outfile = fileURLToPath(new URL('../node_modules/.cache/plinth-bench/posed-fixtures.mjs', import.meta.url));
  await build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'error' });
  return import(pathToFileURL(outfile).href);
}

printEnvironment();
const { renderSyntheticCapture } = await loadFixtures();
let t = performance.now();
const capture = await renderSyntheticCapture({ chromiumPath, count: photos, width, height });
console.log(`rendered ${photos} photos ${width} × ${height} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
const views = capture.shots.map((s) => ({ image: s.image, mask: s.mask, azimuthDeg: 0 }));

const generator = createBuiltinGenerator();
const rows = [['round', 'status', 'wall (s)', 'CPU (s)', 'ratio to goal', 'peak RSS (MB)', 'views placed', 'held-out IoU', 'stereo', 'size vs truth', 'steps (s)']];
const results = [];
for (let r = 0; r < rounds; r++) {
  const steps = new Map();
  const cpuSteps = new Map();
  let current = null;
  let since = performance.now();
  let cpuSince = treeCpuSeconds(process.pid);
  const cpuStarted = cpuSince;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeMb(process.pid))), 250);
  const started = performance.now();
  let out = null;
  let failure = null;
  try {
    // Camera recovery reports one step; its progress moves after COLMAP's features, matching and mapping, which
    // splits it here into the capture-mat search with COLMAP's feature extraction, matching, mapping, and the rest
    // (the second registration pass, reading the model).
    const cameraParts = ['cameras: mat + features', 'cameras: matching', 'cameras: mapping', 'cameras: rest'];
    let cameraPart = -1;
    let cameraPercent = null;
    out = await generator.generate(views, { capture: 'walkaround', dimensions: { height: capture.size.height } }, async (percent, reported) => {
      let step = reported;
      if (reported === 'finding_cameras') {
        if (percent !== cameraPercent) [cameraPart, cameraPercent] = [Math.min(cameraParts.length - 1, cameraPart + 1), percent];
        step = cameraParts[cameraPart];
      }
      if (step === current) return;
      const now = performance.now();
      const cpu = treeCpuSeconds(process.pid);
      if (current) {
        steps.set(current, (steps.get(current) ?? 0) + (now - since) / 1000);
        cpuSteps.set(current, (cpuSteps.get(current) ?? 0) + cpu - cpuSince);
      }
      [current, since, cpuSince] = [step, now, cpu];
    });
  } catch (error) {
    failure = error;
  }
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  const cpuEnd = treeCpuSeconds(process.pid);
  if (current) {
    steps.set(current, (steps.get(current) ?? 0) + (performance.now() - since) / 1000);
    cpuSteps.set(current, (cpuSteps.get(current) ?? 0) + cpuEnd - cpuSince);
  }
  const cpuSeconds = cpuEnd - cpuStarted;
  const q = out?.quality;
  const d = out?.dimensions;
  results.push({
    seconds,
    cpuSeconds,
    peak,
    status: out ? 'ready' : failure?.reason ?? String(failure),
    steps: Object.fromEntries(steps),
    cpuSteps: Object.fromEntries(cpuSteps),
  });
  rows.push([
    String(r + 1),
    out ? 'ready' : `failed (${failure?.reason ?? failure})`,
    seconds.toFixed(1),
    cpuSeconds.toFixed(1),
    (seconds / GOAL_SECONDS).toFixed(2),
    peak.toFixed(0),
    q ? `${q.views_used} of ${q.views_total}` : 'n/a',
    q?.heldout_iou ? `${q.heldout_iou.median} (min ${q.heldout_iou.min})` : 'n/a',
    q?.stereo_coverage != null ? `${q.method}, ${q.stereo_coverage}` : q?.method ?? 'n/a',
    d ? ['width', 'height', 'depth'].map((k) => (d[k] / capture.size[k]).toFixed(3)).join(' × ') : 'n/a',
    [...steps].map(([k, v]) => `${k} ${v.toFixed(1)} (CPU ${(cpuSteps.get(k) ?? 0).toFixed(1)})`).join(', '),
  ]);
  if (failure) console.log(`round ${r + 1}: ${failure.message ?? failure}`);
}
console.log('\n' + formatTable(rows));
const [load1] = loadavg();
const median = results.map((x) => x.seconds).sort((a, b) => a - b)[Math.floor(results.length / 2)];
const medianCpu = results.map((x) => x.cpuSeconds).sort((a, b) => a - b)[Math.floor(results.length / 2)];
console.log(`\nmedian wall ${median.toFixed(1)} s, CPU ${medianCpu.toFixed(1)} s for ${photos} photos (goal ≤ ${GOAL_SECONDS} s, ratio ${(median / GOAL_SECONDS).toFixed(2)}); load average ${load1.toFixed(1)} on ${availableParallelism()} CPUs`);
if (load1 > availableParallelism() * 1.5) console.log('WARNING: the machine was busy with other work; wall times are inflated');
recordResult('walkaround', { photos, width, height, rounds: results });
