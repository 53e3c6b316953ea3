#!/usr/bin/env node
// Does `cutout.confidence` separate right cut-outs from wrong ones? Per segmenter, on three sets:
//   tune   the synthetic product scenes and the wrong-object scenes with seeds 1-3 (the thresholds were set here)
//   held   the same kinds with seeds 11-13 and the product scenes with seed 21 (never tuned on)
//   photo  real photos with reference masks (DIR or CUTOUT_DATA_DIR; skipped when absent)
// For every image: IoU, status, confidence and each feature the confidence is read from; then, per set and
// feature, the range among wrong cut-outs (IoU < 0.8) against the range among right ones (IoU >= 0.9).
//
//   node bench/cutout-confidence.mjs [DIR]      CUTOUT_SEGMENTERS=classical,isnet (default: all available)
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

const media = await import('@plinth/media');
const dir = process.argv[2] || process.env.CUTOUT_DATA_DIR || null;
if (!dir || !existsSync(dir)) console.log('cutout-confidence: no photo directory (argument or CUTOUT_DATA_DIR); real photos skipped');
const hasModel = media.modelPackageDir() !== null;
const wanted = (process.env.CUTOUT_SEGMENTERS || (hasModel ? 'classical,isnet' : 'classical')).split(',');

const items = [];
for (const [set, seed] of [['tune', 7], ['held', 21]]) {
  for (const scene of media.CUTOUT_SCENES) {
    items.push({ set, name: `${scene.name}-${seed}`, load: async () => media.makeCutoutScene(scene, seed) });
  }
}
for (const [set, seeds] of [['tune', [1, 2, 3]], ['held', [11, 12, 13]]]) {
  for (const seed of seeds) for (const kind of media.DISTRACTOR_KINDS) items.push({ set, name: `${kind}-${seed}`, load: async () => media.makeDistractorScene(kind, seed) });
}
if (dir && existsSync(dir)) {
  for (const file of readdirSync(dir).filter((f) => /\.(png|jpe?g)$/i.test(f) && !f.includes('_mask')).sort()) {
    const maskFile = join(dir, file.replace(/\.(png|jpe?g)$/i, '_mask.png'));
    if (!existsSync(maskFile)) continue;
    items.push({ set: 'photo', name: file.slice(0, 24), file: join(dir, file), maskFile });
  }
}

const FEATURES = ['decisiveness', 'borders', 'bigParts', 'solidity', 'colourSeparation', 'agreement', 'leftover'];
const rows = [];
for (const kind of wanted) {
  if (kind === 'isnet' && !hasModel) {
    console.log('cutout-confidence: no IS-Net model (npx plinth segmenter install); isnet skipped');
    continue;
  }
  const segmenter = media.chooseSegmenter({ kind });
  for (const item of items) {
    let r;
    let truth;
    if (item.file) {
      r = await media.segmentImage(readFileSync(item.file), segmenter);
      const mask = await sharp(item.maskFile).greyscale().resize(r.width, r.height, { fit: 'fill' }).raw().toBuffer();
      truth = Float32Array.from(mask, (v) => v / 255);
    } else {
      const scene = await item.load();
      r = await media.segmentRgb(scene.image, segmenter);
      truth = scene.truth;
    }
    rows.push({ segmenter: kind, set: item.set, name: item.name, iou: media.maskIou(r.alpha, truth), ...r.cutout, ...r.evidence });
  }
}

const pad = (s, n) => String(s).padEnd(n);
const num = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(3));
console.log('\n' + pad('segmenter', 10) + pad('set', 6) + pad('image', 28) + pad('IoU', 7) + pad('status', 10) + pad('conf', 7) + FEATURES.map((f) => pad(f.slice(0, 8), 9)).join(''));
for (const r of rows) {
  console.log(pad(r.segmenter, 10) + pad(r.set, 6) + pad(r.name, 28) + pad(r.iou.toFixed(3), 7) + pad(r.status, 10) + pad(r.confidence.toFixed(2), 7) + FEATURES.map((f) => pad(num(r[f]), 9)).join(''));
}
const range = (list, f) => (list.length ? `${num(Math.min(...list.map((r) => r[f])))}..${num(Math.max(...list.map((r) => r[f])))}` : '-');
console.log('\nPer set: wrong = IoU < 0.8, right = IoU >= 0.9; each feature as min..max (wrong | right)');
for (const kind of wanted) {
  for (const set of ['tune', 'held', 'photo']) {
    const list = rows.filter((r) => r.segmenter === kind && r.set === set);
    if (!list.length) continue;
    const wrong = list.filter((r) => r.iou < 0.8);
    const right = list.filter((r) => r.iou >= 0.9);
    const count = (l, s) => l.filter((r) => r.status === s).length;
    console.log(
      `${kind} ${set}: wrong ${wrong.length} (ok ${count(wrong, 'ok')}, uncertain ${count(wrong, 'uncertain')}, none ${count(wrong, 'none')}); ` +
        `right ${right.length} (ok ${count(right, 'ok')}, uncertain ${count(right, 'uncertain')}, none ${count(right, 'none')})`,
    );
    for (const f of [...FEATURES, 'confidence']) console.log(`  ${pad(f, 17)} ${pad(range(wrong, f), 16)} | ${range(right, f)}`);
  }
}
