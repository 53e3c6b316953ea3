import { beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createBuiltinGenerator } from '../generate/builtin-generator.js';
import { renderSyntheticCapture, type SyntheticCapture } from '../generate/posed-fixtures.test-support.js';
import { processImage } from '../image/image-pipeline.js';
import { modelPackageDir } from '../segment/isnet-model.js';
import type { SegmenterKind } from '../segment/segment.js';
import { MAT_PATH, MAT_SCENE } from './mat-scene.test-support.js';

// The mat capture with the cut-out production makes instead of the renderer's exact masks: each photo goes
// through the ingest's image pipeline, and the generator takes the mat out of the masks it gets back
// (mat-mask.ts). The segmenters alone keep the page as part of the product (IoU about 0.15–0.25 here).

const CHROMIUM = '/usr/bin/chromium';
const COUNT = 16;
const [WIDTH, HEIGHT] = [1280, 960];
const hasIsNet = modelPackageDir() !== null;
if (!hasIsNet) console.warn('mat-cutout.happy.test: @imgly/background-removal-data is not installed; the IS-Net variant is skipped (npx plinth segmenter install)');

async function productPixels(png: Buffer): Promise<Uint8Array> {
  const { data, info } = await sharp(png).removeAlpha().toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
  return Uint8Array.from({ length: info.width * info.height }, (_, i) => (data[i * info.channels] >= 128 ? 1 : 0));
}

function iou(a: Uint8Array, b: Uint8Array): number {
  let both = 0;
  let either = 0;
  for (let i = 0; i < a.length; i++) {
    both += a[i] & b[i];
    either += a[i] | b[i];
  }
  return both / Math.max(1, either);
}

/** The cut-out of every photo through the ingest's pipeline, its IoU against the exact mask, and the model. */
async function throughTheEngine(capture: SyntheticCapture, kind: SegmenterKind) {
  const masks: Buffer[] = [];
  const ious: number[] = [];
  for (const shot of capture.shots) {
    const processed = await processImage(shot.image, { segmenter: { kind } });
    masks.push(processed.mask);
    ious.push(iou(await productPixels(processed.mask), await productPixels(shot.mask)));
  }
  const views = capture.shots.map((s, i) => ({ image: s.image, mask: masks[i] }));
  const result = await createBuiltinGenerator().generate(views, { capture: 'auto', triangleBudget: 20_000 });
  const sizeError = (['width', 'height', 'depth'] as const).map((side) => result.dimensions[side] / capture.size[side] - 1);
  console.log(kind, 'cut-out IoU', ious.map((v) => v.toFixed(2)).join(' '), 'model', result.dimensions, result.quality, 'size error', sizeError);
  return { result, sizeError };
}

function expectTrueSizeInOnePiece({ result, sizeError }: Awaited<ReturnType<typeof throughTheEngine>>): void {
  expect(result.quality!.pose_source).toBe('mat');
  expect(result.quality!.scale_source).toBe('mat');
  expect(result.quality!.largest_piece).toBeGreaterThanOrEqual(0.95);
  for (const e of sizeError) expect(Math.abs(e)).toBeLessThan(0.05);
}

describe('a textureless product on the capture mat, cut out by the segmenters', () => {
  let capture: SyntheticCapture;
  beforeAll(async () => {
    capture = await renderSyntheticCapture({ chromiumPath: CHROMIUM, count: COUNT, width: WIDTH, height: HEIGHT, mat: MAT_SCENE, path: MAT_PATH });
  }, 300_000);

  it.skipIf(!hasIsNet)('IS-Net keeps the page, the mat takes it out again: one piece at the true size', { timeout: 600_000 }, async () => {
    expectTrueSizeInOnePiece(await throughTheEngine(capture, 'isnet'));
  });

  // Known gap, measured and documented in docs/generation.md (capture mat): the classical cut-out takes the
  // page for the product and, in some photos, the vase's top seen against the table for backdrop; the mat
  // cannot bring back what lies off the page, so classical mat captures are refused (largest piece 0.81),
  // never a slab marked ready. Not run here: it costs CI minutes to show a known refusal.
});
