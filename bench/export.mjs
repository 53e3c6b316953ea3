// Image finishing (cut-out, fit, shadow, background, encode) against sharp's plain
// decode → composite onto a 2048² background → encode of the same photos: what the
// finishing costs on top of the work any export has to do anyway.
//
//   npm run build && node bench/export.mjs [--images=16] [--rounds=3]
//
// Both sides keep two images in flight (the target machine has two cores) and
// encode JPEG with the same options, so the ratio isolates the finishing work.
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { finishImage, resolveSettings } from '@plinth/media';
import sharp from 'sharp';
import { makeProductPhotos } from './export-lib/photos.mjs';
import { formatTable, watchRss } from './export-lib/measure.mjs';
import { printEnvironment, recordResult } from './lib/report.mjs';

const SIDE = 2000;
const SIZE = 2048;
const IN_FLIGHT = 2;
const GOAL = 0.7;

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const imageCount = Number(args.images ?? 16);
const rounds = Number(args.rounds ?? 3);
// The module sets this itself on import; repeated here so the baseline is
// guaranteed the same thread budget whatever the module does.
sharp.concurrency(2);

const settings = resolveSettings(null);

const modes = {
  baseline: async ({ original }) => {
    const data = await sharp({ create: { width: SIZE, height: SIZE, channels: 3, background: '#ffffff' } })
      .composite([{ input: original, gravity: 'centre' }])
      .jpeg({ quality: 90, mozjpeg: false })
      .toBuffer();
    return data.length;
  },
  finish: async ({ original, mask }) => {
    const out = await finishImage({ original, mask, settings, size: SIZE });
    if (out.width !== SIZE || out.height !== SIZE) throw new Error(`finishImage returned ${out.width}×${out.height}`);
    return out.data.length;
  },
};

/** Runs `work` over all photos with IN_FLIGHT of them being processed at any time. */
async function runAll(photos, work) {
  let next = 0;
  let bytes = 0;
  const lane = async () => {
    while (next < photos.length) bytes += await work(photos[next++]);
  };
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const cpu = process.cpuUsage(cpuBefore);
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, bytes };
}

printEnvironment();
console.log(`sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips}, sharp.concurrency ${sharp.concurrency()}`);
console.log(
  `${imageCount} synthetic ${SIDE}×${SIDE} JPEG product photos + PNG masks → ${SIZE}² JPEG q90, ` +
    `${IN_FLIGHT} in flight, ${rounds} rounds alternating baseline/finish; finish settings ${JSON.stringify(settings)}`,
);

let t = performance.now();
const photos = await makeProductPhotos(imageCount, SIDE);
const inputMb = photos.reduce((n, p) => n + p.original.length + p.mask.length, 0) / 2 ** 20;
console.log(`generated fixtures in ${((performance.now() - t) / 1000).toFixed(1)} s (${inputMb.toFixed(1)} MB in memory)`);

// Warm-up: first calls pay for libvips' operation cache and JIT.
for (const work of Object.values(modes)) await runAll(photos.slice(0, IN_FLIGHT * 2), work);

const totals = {};
for (const name of Object.keys(modes)) totals[name] = { seconds: 0, cpuSeconds: 0, images: 0, bytes: 0, peakRss: 0 };
t = performance.now();
for (let r = 0; r < rounds; r++) {
  // Alternating the order cancels drift (thermal, page cache) between the two sides.
  const order = r % 2 === 0 ? ['baseline', 'finish'] : ['finish', 'baseline'];
  for (const name of order) {
    const rss = watchRss();
    const { seconds, cpuSeconds, bytes } = await runAll(photos, modes[name]);
    const total = totals[name];
    total.seconds += seconds;
    total.cpuSeconds += cpuSeconds;
    total.images += photos.length;
    total.bytes += bytes;
    total.peakRss = Math.max(total.peakRss, rss.stop());
  }
}
const measuredSeconds = (performance.now() - t) / 1000;

const rate = (m) => m.images / m.seconds;
const base = totals.baseline;
const fin = totals.finish;
const ratio = rate(fin) / rate(base);
const cpuRatio = base.cpuSeconds / base.images / (fin.cpuSeconds / fin.images);
const mb = (bytes) => (bytes / 2 ** 20).toFixed(0);
console.log(
  '\n' +
    formatTable([
      ['', 'baseline (decode+composite+encode)', 'finish (default: soft shadow)', 'finish/baseline'],
      ['images/s', rate(base).toFixed(2), rate(fin).toFixed(2), `${ratio.toFixed(2)}x`],
      ['ms per image (wall / images)', ((1000 * base.seconds) / base.images).toFixed(1), ((1000 * fin.seconds) / fin.images).toFixed(1), ''],
      // Process CPU time (all threads) is steadier than wall time on a shared machine.
      ['CPU ms per image', ((1000 * base.cpuSeconds) / base.images).toFixed(1), ((1000 * fin.cpuSeconds) / fin.images).toFixed(1), `${cpuRatio.toFixed(2)}x (baseline/finish)`],
      ['images', base.images, fin.images, ''],
      ['mean output (KB)', (base.bytes / base.images / 1024).toFixed(0), (fin.bytes / fin.images / 1024).toFixed(0), ''],
      ['peak RSS during phase (MB)', mb(base.peakRss), mb(fin.peakRss), ''],
    ]),
);
const peakRss = process.resourceUsage().maxRSS * 1024;
const [load1] = loadavg();
console.log(`\nprocess peak RSS ${mb(peakRss)} MB; measured for ${measuredSeconds.toFixed(1)} s; load average ${load1.toFixed(1)} on ${availableParallelism()} CPUs`);
// Other work on the machine skews wall-clock throughput, not CPU time.
if (load1 > availableParallelism() * 1.5) console.log('WARNING: the machine was busy with other work; images/s figures are unreliable, compare CPU ms instead');
console.log(
  ratio >= GOAL
    ? `OK: finishing runs at ${ratio.toFixed(2)}x the baseline throughput (goal ≥ ${GOAL}x)`
    : `BELOW GOAL: finishing runs at ${ratio.toFixed(2)}x the baseline throughput (goal ≥ ${GOAL}x)`,
);
recordResult('export-finish', {
  images: imageCount,
  rounds,
  size: SIZE,
  baselineImagesPerSecond: rate(base),
  finishImagesPerSecond: rate(fin),
  ratio,
  baselineCpuMsPerImage: (1000 * base.cpuSeconds) / base.images,
  finishCpuMsPerImage: (1000 * fin.cpuSeconds) / fin.images,
  peakRssBytes: peakRss,
});
