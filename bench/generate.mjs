// The built-in 3D generator (visual hull) on synthetic turntable photos: wall time,
// CPU time and peak memory for one product, against the goal of under 20 s for
// 8 views at 1024 px on a two-core machine.
//
//   npm run build && node bench/generate.mjs [--views=8] [--size=1024] [--rounds=3]
//     [--shape=box|cylinder|sphere] [--elevation=0]
//
// The generator is the media engine's, imported by package name (its dist/, hence the
// build). The photos come from the tests' turntable renderer, which the build leaves out of
// dist as test support: it is transpiled here on the fly (types stripped, nothing else)
// into node_modules/.cache so its `sharp` import resolves. They are rendered first and
// not timed. Each round runs one generation, as the
// worker does; its peak RSS is sampled while it runs (the generator yields to the
// event loop between carving slabs, so the sampler gets to look).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createBuiltinGenerator } from '@plinth/media';
import ts from 'typescript';
import { formatTable, watchRss } from './export-lib/measure.mjs';
import { printEnvironment, recordResult } from './lib/report.mjs';

const GOAL_SECONDS = 20;

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const views = Number(args.views ?? 8);
const size = Number(args.size ?? 1024);
const rounds = Number(args.rounds ?? 3);
const elevationDeg = Number(args.elevation ?? 0);
const shapes = {
  box: { kind: 'box', width: 0.4, height: 0.3, depth: 0.2 },
  cylinder: { kind: 'cylinder', radius: 0.1, height: 0.3 },
  sphere: { kind: 'sphere', radius: 0.15, height: 0.3 },
};
const shape = shapes[args.shape ?? 'box'];
if (!shape) {
  console.error(`unknown --shape; use one of ${Object.keys(shapes).join(', ')}`);
  process.exit(1);
}

const { renderTurntable } = await import(pathToFileURL(transpileFixtures()).href);

function transpileFixtures() {
  const source = fileURLToPath(new URL('../packages/media/src/generate/turntable-fixtures.test-support.ts', import.meta.url));
  const cache = fileURLToPath(new URL('../node_modules/.cache/plinth-bench/', import.meta.url));
  const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  });
  mkdirSync(cache, { recursive: true });
  const out = resolve(cache, 'turntable-fixtures.mjs');
  writeFileSync(out, outputText);
  return out;
}

printEnvironment();
// The largest side of the product fills about 80% of the frame, as in a studio shot.
const pixelsPerMetre = (0.8 * size) / Math.max(shape.height, shape.width ?? 2 * shape.radius, Math.hypot(shape.width ?? 0, shape.depth ?? 0));
console.log(`${views} synthetic ${size}×${size} turntable views of a ${JSON.stringify(shape)} at elevation ${elevationDeg}°, ${rounds} rounds`);

let t = performance.now();
const photos = await renderTurntable(shape, { views, size, pixelsPerMetre, elevationDeg });
const inputMb = photos.reduce((n, p) => n + p.image.length + p.mask.length, 0) / 2 ** 20;
console.log(`rendered views in ${((performance.now() - t) / 1000).toFixed(1)} s (${inputMb.toFixed(1)} MB encoded)`);

const generator = createBuiltinGenerator();
const hints = { heightMetres: shape.height, elevationDeg };
const mb = (bytes) => (bytes / 2 ** 20).toFixed(0);
const rows = [['round', 'wall (s)', 'CPU (s)', 'peak RSS (MB)', 'triangles', 'GLB (KB)', 'width × height × depth (m)']];
const results = [];
for (let r = 0; r < rounds; r++) {
  const rss = watchRss();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const out = await generator.generate(photos, hints);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const peak = rss.stop();
  const { width, height, depth } = out.dimensions;
  results.push({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, peakRss: peak, triangles: out.triangles, bytes: out.glb.length });
  rows.push([
    String(r + 1),
    seconds.toFixed(2),
    ((cpu.user + cpu.system) / 1e6).toFixed(2),
    mb(peak),
    String(out.triangles),
    (out.glb.length / 1024).toFixed(0),
    `${width.toFixed(4)} × ${height.toFixed(4)} × ${depth.toFixed(4)}`,
  ]);
}
console.log('\n' + formatTable(rows));

const sorted = results.map((x) => x.seconds).sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
const peakRss = Math.max(...results.map((x) => x.peakRss));
const [load1] = loadavg();
console.log(
  `\nmedian wall ${median.toFixed(2)} s; peak RSS while generating ${mb(peakRss)} MB; ` +
    `process peak RSS ${mb(process.resourceUsage().maxRSS * 1024)} MB; load average ${load1.toFixed(1)} on ${availableParallelism()} CPUs`,
);
if (load1 > availableParallelism() * 1.5) console.log('WARNING: the machine was busy with other work; wall times are inflated, CPU time is steadier');
console.log(
  median <= GOAL_SECONDS
    ? `OK: ${median.toFixed(2)} s per product (goal ≤ ${GOAL_SECONDS} s)`
    : `ABOVE GOAL: ${median.toFixed(2)} s per product (goal ≤ ${GOAL_SECONDS} s)`,
);
recordResult('generate-builtin', { views, size, shape, elevationDeg, rounds: results, medianSeconds: median, peakRss });
