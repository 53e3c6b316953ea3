/**
 * The cut-out: one interface, two segmenters. `segmentImage` gives a soft alpha mask at the image's
 * full resolution and says how it went; an image that already has transparency keeps its own alpha.
 */
import sharp from 'sharp';
import { MediaError } from '../errors.js';
import { createClassicalSegmenter } from './classical.js';
import { createIsNetSegmenter } from './isnet.js';
import { locateModel, type ModelVariant } from './isnet-model.js';
import { cleanProbability, gatherEvidence, judge, upsampleAlpha } from './mask-refine.js';
import type { CutoutEvidence } from './mask-features.js';
import type { CutoutInfo, Probability, RgbImage, SegmentResult, Segmenter } from './segment-types.js';

export type SegmenterKind = 'auto' | 'isnet' | 'classical';

export interface SegmenterChoice {
  kind: SegmenterKind;
  /** explicit IS-Net ONNX file; otherwise the optional model package is looked for */
  modelPath?: string | null;
  /** which of the package's models: 'medium' by default (the quantised 'small' one leaves a haze over flat backdrops and finds shapes in empty frames; see bench/cutout.mjs) */
  variant?: ModelVariant;
  threads?: number;
}

/** An alpha channel whose smallest value is this high carries no cut-out information. */
const OPAQUE_ALPHA = 250;

const cache = new Map<string, Segmenter>();

/**
 * The segmenter for a configuration, made once per process. `auto` is IS-Net when a model is
 * available, else classical; an explicit `isnet` without a model is a configuration error.
 */
export function chooseSegmenter(choice: SegmenterChoice): Segmenter {
  const variant = choice.variant ?? 'medium';
  const key = `${choice.kind}|${choice.modelPath ?? ''}|${variant}|${choice.threads ?? ''}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let segmenter: Segmenter;
  if (choice.kind === 'classical') {
    segmenter = createClassicalSegmenter();
  } else {
    const source = locateModel(choice.modelPath, variant);
    if (!source) {
      if (choice.kind === 'isnet') {
        throw new MediaError('tool_missing', 'PLINTH_SEGMENTER=isnet needs PLINTH_SEGMENTER_MODEL or `plinth segmenter install`.');
      }
      segmenter = createClassicalSegmenter();
    } else {
      segmenter = createIsNetSegmenter({ source, threads: choice.threads });
    }
  }
  cache.set(key, segmenter);
  return segmenter;
}

/**
 * Which segmenter a configuration runs, without loading anything (the API process reports it in its
 * health answer and never runs a model itself).
 */
export function describeSegmenter(choice: SegmenterChoice): { name: 'isnet' | 'classical'; model: string | null } {
  if (choice.kind === 'classical') return { name: 'classical', model: null };
  const source = locateModel(choice.modelPath, choice.variant ?? 'medium');
  return source ? { name: 'isnet', model: source.name } : { name: 'classical', model: null };
}

export interface SegmentOptions {
  /** the image is one of Plinth's own renders: its alpha is reported as `rendered` */
  rendered?: boolean;
}

/** Decodes (EXIF-oriented) and cuts out. */
export async function segmentImage(input: Buffer, segmenter: Segmenter, opts: SegmentOptions = {}): Promise<SegmentResult> {
  const { data, info } = await sharp(input, { autoOrient: true, pages: 1 })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const n = width * height;
  if (channels === 4) {
    let minAlpha = 255;
    for (let i = 3; i < data.length; i += 4) if (data[i] < minAlpha) minAlpha = data[i];
    if (minAlpha < OPAQUE_ALPHA) {
      const alpha = new Uint8Array(n);
      for (let i = 0; i < n; i++) alpha[i] = data[i * 4 + 3];
      return { alpha, width, height, cutout: judgeAlpha(alpha, width, height, opts.rendered ? 'rendered' : 'alpha') };
    }
  }
  let rgb: Uint8Array = data;
  if (channels !== 3) {
    rgb = new Uint8Array(n * 3);
    for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) rgb[i * 3 + c] = data[i * channels + Math.min(c, channels - 1)];
  }
  return segmentRgb({ data: rgb, width, height }, segmenter);
}

/** The cut-out of decoded pixels; `evidence` is what its confidence was read from (for the bench and tests). */
export async function segmentRgb(image: RgbImage, segmenter: Segmenter): Promise<SegmentResult & { evidence: CutoutEvidence }> {
  const p = await segmenter.probability(image);
  cleanProbability(p.prob, p.width, p.height);
  const evidence = await gatherEvidence(p);
  const cutout = judge(p, segmenter.name, evidence);
  const alpha =
    cutout.status === 'none'
      ? // Nothing apart from the surroundings: the whole photo, clearly labelled, never a guess dressed as a cut-out.
        new Uint8Array(image.width * image.height).fill(255)
      : upsampleAlpha(p, image);
  return { alpha, width: image.width, height: image.height, cutout, evidence };
}

/** The status of an existing alpha channel, judged by the same rules (at most 512 px for speed). */
export function judgeAlpha(alpha: Uint8Array, width: number, height: number, method: 'alpha' | 'rendered'): CutoutInfo {
  const step = Math.max(1, Math.ceil(Math.max(width, height) / 512));
  const w = Math.ceil(width / step);
  const h = Math.ceil(height / step);
  const prob = new Float32Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) prob[y * w + x] = alpha[y * step * width + x * step] / 255;
  const p: Probability = { prob, width: w, height: h, guide: { data: new Uint8Array(0), width: w, height: h }, trust: 1 };
  const info = judge(p, method);
  // The image's author drew this alpha: it is the product's cut-out by definition unless it is empty or full.
  return info.status === 'uncertain' ? { ...info, status: 'ok', confidence: Math.max(info.confidence, 0.9) } : info;
}

export type { CutoutInfo, CutoutMethod, CutoutStatus, SegmentResult, Segmenter, RgbImage } from './segment-types.js';
export type { CutoutEvidence } from './mask-features.js';
export { locateModel, MODEL_PACKAGE, modelPackageDir, loadModelBytes } from './isnet-model.js';
export type { ModelVariant, ModelSource } from './isnet-model.js';
