#!/usr/bin/env node
// The cut-out, per segmenter and per image: IoU against a reference mask, cutout.status, seconds per
// image (wall and CPU) and the peak RSS of the child process that ran it. Each segmenter runs in its
// own child, as in the worker's sandbox: the model is loaded once, the first image pays for it.
//
//   node bench/cutout.mjs [DIR]        DIR (or CUTOUT_DATA_DIR): photos with *_mask.png references
//   CUTOUT_SEGMENTERS=classical,isnet:small,isnet:medium   which to run (default: all available)
//
// The baseline is the classical segmenter: the ratio printed is each segmenter's mean seconds per
// image (after the first) over the classical one's.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4] || null);
} else {
  await main();
}

async function main() {
  const media = await import('@plinth/media');
  const dir = process.argv[2] || process.env.CUTOUT_DATA_DIR || null;
  if (dir && !existsSync(dir)) console.log(`cutout: ${dir} does not exist; real photos skipped`);
  if (!dir) console.log('cutout: no photo directory given (argument or CUTOUT_DATA_DIR); real photos skipped');
  const hasModel = media.modelPackageDir() !== null;
  const wanted = (process.env.CUTOUT_SEGMENTERS || (hasModel ? 'classical,isnet:small,isnet:medium' : 'classical')).split(',');
  if (!hasModel && wanted.some((w) => w.startsWith('isnet'))) {
    console.log('cutout: no IS-Net model (npx plinth segmenter install); isnet skipped');
  }
  const runs = [];
  for (const w of wanted) {
    if (w.startsWith('isnet') && !hasModel) continue;
    runs.push({ label: w, result: await runChild(w, dir && existsSync(dir) ? dir : '') });
  }
  const rows = [];
  for (const { label, result } of runs) {
    for (const r of result.images) rows.push({ segmenter: label, ...r });
  }
  const pad = (s, n) => String(s).padEnd(n);
  console.log('\n' + pad('segmenter', 14) + pad('image', 26) + pad('IoU', 7) + pad('status', 11) + pad('conf', 7) + pad('wall s', 8) + 'cpu s');
  for (const r of rows) {
    console.log(
      pad(r.segmenter, 14) + pad(r.name, 26) + pad(r.iou.toFixed(3), 7) + pad(r.status, 11) + pad(r.confidence.toFixed(2), 7) +
        pad(r.seconds.toFixed(2), 8) + r.cpuSeconds.toFixed(2),
    );
  }
  const mean = (a) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : NaN);
  const base = runs.find((r) => r.label === 'classical');
  const baseSeconds = base ? mean(base.result.images.slice(1).map((i) => i.seconds)) : NaN;
  console.log('\n' + pad('segmenter', 14) + pad('mean IoU', 10) + pad('real IoU', 10) + pad('s/img', 8) + pad('cpu s/img', 11) + pad('first s', 9) + pad('ratio', 8) + 'peak RSS');
  for (const { label, result } of runs) {
    const later = result.images.slice(1);
    const real = result.images.filter((i) => i.kind === 'photo');
    const synthetic = result.images.filter((i) => i.kind === 'synthetic' && !i.empty);
    const seconds = mean(later.map((i) => i.seconds));
    console.log(
      pad(label, 14) + pad(mean(synthetic.map((i) => i.iou)).toFixed(3), 10) + pad(real.length ? mean(real.map((i) => i.iou)).toFixed(3) : '-', 10) +
        pad(seconds.toFixed(2), 8) + pad(mean(later.map((i) => i.cpuSeconds)).toFixed(2), 11) + pad(result.images[0]?.seconds.toFixed(2) ?? '-', 9) +
        pad((seconds / baseSeconds).toFixed(2), 8) + `${Math.round(result.peakRssKb / 1024)} MB`,
    );
  }
  console.log('\nmean IoU: synthetic images with a product; real IoU: the photos; s/img and cpu s/img after the first image; ratio: s/img over classical\'s.');
}

function runChild(label, dir) {
  const [kind, variant] = label.split(':');
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [self, '--child', kind, variant || ''], {
      env: { ...process.env, CUTOUT_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${label} child exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

async function child(kind, variant) {
  const media = await import('@plinth/media');
  const sharp = (await import('sharp')).default;
  const segmenter = media.chooseSegmenter({ kind, variant: variant || undefined });
  const images = [];
  const measure = async (fn) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await fn();
    const c = process.cpuUsage(c0);
    return { r, seconds: (performance.now() - t0) / 1000, cpuSeconds: (c.user + c.system) / 1e6 };
  };
  const dir = process.env.CUTOUT_DIR;
  if (dir) {
    for (const f of readdirSync(dir).filter((f) => /\.(png|jpe?g|webp)$/i.test(f) && !/_mask\./.test(f)).sort()) {
      const maskFile = join(dir, f.replace(/\.[^.]+$/, '_mask.png'));
      if (!existsSync(maskFile)) continue;
      const input = await sharp(join(dir, f)).toBuffer();
      const { r, seconds, cpuSeconds } = await measure(() => media.segmentImage(input, segmenter));
      const ref = await sharp(maskFile).extractChannel(0).resize(r.width, r.height, { fit: 'fill' }).raw().toBuffer();
      const truth = Float32Array.from(ref, (v) => v / 255);
      images.push({ kind: 'photo', name: f.slice(0, 24), iou: media.maskIou(r.alpha, truth), ...r.cutout, seconds, cpuSeconds });
    }
  }
  for (const scene of [...media.CUTOUT_SCENES, ...media.CUTOUT_EMPTY_SCENES]) {
    const s = media.makeCutoutScene(scene);
    const { r, seconds, cpuSeconds } = await measure(() => media.segmentRgb(s.image, segmenter));
    const empty = media.CUTOUT_EMPTY_SCENES.includes(scene);
    // For an empty frame the right answer is `none`: score 1 when it says so, 0 otherwise.
    const iou = empty ? (r.cutout.status === 'none' ? 1 : 0) : media.maskIou(r.alpha, s.truth);
    images.push({ kind: 'synthetic', empty, name: scene.name, iou, ...r.cutout, seconds, cpuSeconds });
  }
  process.stdout.write(JSON.stringify({ images, peakRssKb: process.resourceUsage().maxRSS }) + '\n');
}
