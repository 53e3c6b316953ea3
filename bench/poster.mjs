// The poster render on its own: a typical product (BENCH_POSTER_TRIANGLES, default 150,000 triangles, with a
// BENCH_POSTER_TEXTURE px base colour texture, default 2048) drawn as the import draws its poster (one view,
// 1024 px, studio environment), BENCH_POSTER_RENDERS times (default 6) on the worker's warm renderer, against the
// same renders each on a browser of its own (launched and closed per render, as before the warm renderer).
// Prints p50/p95 ms of both, the ratio, the first (cold) render, and the peak resident memory of the browser's
// process tree. Goal: a warm poster in at most 3 s.
//
//   npm run build && node bench/poster.mjs
import { existsSync } from 'node:fs';
import { WarmRenderer } from '@plinth/media';
import { sphereModel } from './imports-lib/models.mjs';
import { percentile as pct, treeMb } from './lib/memory.mjs';
import { printEnvironment } from './lib/report.mjs';

const chromiumPath = process.env.PLINTH_CHROMIUM_PATH || '/usr/bin/chromium';
const triangles = Number(process.env.BENCH_POSTER_TRIANGLES ?? 150_000);
const textureSize = Number(process.env.BENCH_POSTER_TEXTURE ?? 2048);
const renders = Number(process.env.BENCH_POSTER_RENDERS ?? 6);
const POSTER = { chromiumPath, views: 1, size: 1024, elevationDeg: 15, timeoutMs: 120_000, environment: true };
const GOAL_MS = 3_000;

if (!existsSync(chromiumPath)) {
  console.log(`SKIPPED: no Chromium at ${chromiumPath} (set PLINTH_CHROMIUM_PATH)`);
  process.exit(0);
}

async function timed(renderer, glb) {
  let peak = 0;
  const watch = setInterval(async () => (peak = Math.max(peak, treeMb(await renderer.browserPid()))), 100);
  const started = performance.now();
  try {
    await renderer.render(glb, POSTER);
    return { ms: performance.now() - started, peak };
  } finally {
    clearInterval(watch);
  }
}

printEnvironment();
const models = [];
for (let i = 0; i < renders; i++) models.push(await sphereModel({ triangles, textureSize, seed: i + 1 }));
console.log(`${models[0].name}: ${models[0].triangles.toLocaleString('en-US')} triangles, GLB ${(models[0].glb.byteLength / 2 ** 20).toFixed(1)} MB; poster 1024 px, studio environment`);

// Baseline: a browser per render, as every render did before.
const cold = [];
for (const model of models) {
  const renderer = new WarmRenderer();
  try {
    cold.push(await timed(renderer, model.glb));
  } finally {
    await renderer.close();
  }
}

const warm = new WarmRenderer();
const warmRuns = [];
let first;
try {
  first = await timed(warm, models[0].glb);
  for (const model of models) warmRuns.push(await timed(warm, model.glb));
} finally {
  await warm.close();
}

const row = (label, runs) =>
  `| ${label} | ${Math.round(pct(runs.map((r) => r.ms), 50))} | ${Math.round(pct(runs.map((r) => r.ms), 95))} | ${Math.round(Math.max(...runs.map((r) => r.peak)))} |`;
console.log('\n| renders | p50 ms | p95 ms | peak browser RSS MB |\n|---|---|---|---|');
console.log(row(`a browser per render (baseline), ${cold.length}`, cold));
console.log(row(`warm renderer, first render (launch included)`, [first]));
console.log(row(`warm renderer, ${warmRuns.length} after it`, warmRuns));
const p50 = pct(warmRuns.map((r) => r.ms), 50);
console.log(`\nwarm/baseline p50: ${(p50 / pct(cold.map((r) => r.ms), 50)).toFixed(2)}x; warm p50 ${Math.round(p50)} ms (goal ≤ ${GOAL_MS} ms: ${p50 <= GOAL_MS ? 'met' : 'not met'})`);
