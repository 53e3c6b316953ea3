/**
 * The segmenter that needs no model: the backdrop estimate (dominant border colour) seeds OpenCV's
 * GrabCut, which then decides the unsure pixels from colour models of product and backdrop plus edge
 * smoothness. Pixels that look like the backdrop in shade (same chromaticity, darker: a cast or
 * contact shadow, a floor's shading) are only "probably backdrop", so the shadow stays out of the mask
 * unless GrabCut finds it really belongs to the product.
 */
import sharp from 'sharp';
import { computeMask, estimateBackground, maskExtent, type Rgb } from '../image/image-mask.js';
import { opencv } from './opencv.js';
import type { Probability, RgbImage, Segmenter } from './segment-types.js';

const WORK_SIDE = 512;
const MIN_BACKDROP_SHARE = 0.35;
/** GrabCut's mask labels: sure and probable backdrop, sure and probable product. */
const { GC_BGD, GC_FGD, GC_PR_BGD, GC_PR_FGD } = { GC_BGD: 0, GC_FGD: 1, GC_PR_BGD: 2, GC_PR_FGD: 3 } as const;

export function createClassicalSegmenter(): Segmenter {
  return {
    name: 'classical',
    version: 'classical-2',
    model: null,
    probability: classicalProbability,
  };
}

async function classicalProbability(image: RgbImage): Promise<Probability> {
  const scale = Math.min(1, WORK_SIDE / Math.max(image.width, image.height));
  const w = Math.max(1, Math.round(image.width * scale));
  const h = Math.max(1, Math.round(image.height * scale));
  const rgb =
    scale === 1
      ? image.data
      : new Uint8Array(
          await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
            .resize(w, h, { fit: 'fill' })
            .raw()
            .toBuffer(),
        );
  const guide = { data: rgb, width: w, height: h };
  const n = w * h;
  const background = estimateBackground(rgb, w, h);
  const seeds = new Uint8Array(n);
  let seedFg = new Uint8Array(n);
  let trust: number;
  let nothing = false;
  if (background.share < MIN_BACKDROP_SHARE) {
    // No backdrop to learn from: GrabCut from a box just inside the frame, at best an uncertain answer.
    const mx = Math.round(w * 0.04);
    const my = Math.round(h * 0.04);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const inside = x >= mx && x < w - mx && y >= my && y < h - my;
        seeds[y * w + x] = inside ? GC_PR_FGD : GC_BGD;
        seedFg[y * w + x] = inside ? 1 : 0;
      }
    }
    trust = 0.45;
  } else {
    const cut = computeMask(rgb, w, h);
    seedFg = Uint8Array.from(cut.mask, (v) => (v ? 1 : 0));
    const shade = shadowLike(rgb, n, background.colour, background.noise);
    const side = Math.min(w, h);
    // Backdrop for sure only outside the seed's box (grown a little): inside it, parts of the product
    // that match the backdrop's colour (white on white) are left for GrabCut to decide.
    const near = grownBox(seedFg, w, h, 0.06);
    const core = await erode(seedFg, w, h, Math.max(1, Math.round(side * 0.015)));
    let fgSeeds = 0;
    for (let i = 0; i < n; i++) {
      if (core[i] && !shade[i]) {
        seeds[i] = GC_FGD;
        fgSeeds++;
      } else if (seedFg[i] && !shade[i]) seeds[i] = GC_PR_FGD;
      else if (near[i]) seeds[i] = GC_PR_BGD;
      else seeds[i] = GC_BGD;
    }
    if (fgSeeds === 0 && !seedFg.some((v) => v)) nothing = true;
    // A backdrop that fills little of the border, or is itself textured (wood, fabric, a scene),
    // is a weak basis for the cut-out: its colour statistics say little about what is product.
    const shareTrust = Math.min(1, Math.max(0, (background.share - MIN_BACKDROP_SHARE) / 0.2));
    const texture = borderTexture(rgb, w, h);
    const calm = Math.min(1, Math.max(0, 1 - (texture - 2) / 4));
    trust = 0.4 + 0.6 * Math.min(shareTrust, calm);
  }

  const prob = new Float32Array(n);
  if (!nothing) {
    const result = await grabCut(rgb, w, h, seeds);
    let inter = 0;
    let union = 0;
    for (let i = 0; i < n; i++) {
      const fg = result[i] === GC_FGD || result[i] === GC_PR_FGD;
      prob[i] = fg ? 1 : 0;
      if (fg && seedFg[i]) inter++;
      if (fg || seedFg[i]) union++;
    }
    // GrabCut overturning most of its own seed means the backdrop estimate was not trustworthy.
    const agreement = union ? inter / union : 0;
    trust *= 0.5 + 0.5 * agreement;
    bridgeBands(prob, w, h);
    softenInPlace(prob, w, h);
  }
  return { prob, width: w, height: h, guide, trust, nothing };
}

/** Median local luma gradient in the border band: near 0 for a studio backdrop, even a graded one. */
function borderTexture(rgb: Uint8Array, w: number, h: number): number {
  const band = Math.max(2, Math.round(Math.min(w, h) * 0.04));
  const lum = (i: number) => 0.299 * rgb[i * 3] + 0.587 * rgb[i * 3 + 1] + 0.114 * rgb[i * 3 + 2];
  const values: number[] = [];
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      if (y >= band && y < h - band && x >= band && x < w - band) continue;
      const i = y * w + x;
      values.push(Math.abs(lum(i + 1) - lum(i - 1)) + Math.abs(lum(i + w) - lum(i - w)));
    }
  }
  values.sort((a, b) => a - b);
  return values.length ? values[values.length >> 1] : 0;
}

/** Pixels whose colour is the backdrop's colour darkened (a shadow on it), but not the backdrop itself. */
function shadowLike(rgb: Uint8Array, n: number, bg: Rgb, noise: number): Uint8Array {
  const out = new Uint8Array(n);
  const bb = bg[0] * bg[0] + bg[1] * bg[1] + bg[2] * bg[2];
  if (bb < 30 * 30) return out; // a black backdrop casts no visible shadow
  const tolerance = 10 + noise;
  for (let i = 0; i < n; i++) {
    const r = rgb[i * 3];
    const g = rgb[i * 3 + 1];
    const b = rgb[i * 3 + 2];
    const k = (r * bg[0] + g * bg[1] + b * bg[2]) / bb;
    if (k < 0.3 || k > 0.97) continue;
    const dr = r - k * bg[0];
    const dg = g - k * bg[1];
    const db = b - k * bg[2];
    if (Math.sqrt(dr * dr + dg * dg + db * db) < tolerance * Math.max(0.5, k)) out[i] = 1;
  }
  return out;
}

function grownBox(mask: Uint8Array, w: number, h: number, margin: number): Uint8Array {
  const out = new Uint8Array(w * h);
  const { box } = maskExtent(mask, w, h, 1);
  if (!box) return out;
  const { x0, y0, x1, y1 } = box;
  const mx = Math.round((x1 - x0 + 1) * margin) + 2;
  const my = Math.round((y1 - y0 + 1) * margin) + 2;
  const band = Math.max(2, Math.round(Math.min(w, h) * 0.02));
  for (let y = Math.max(band, y0 - my); y <= Math.min(h - 1 - band, y1 + my); y++) {
    for (let x = Math.max(band, x0 - mx); x <= Math.min(w - 1 - band, x1 + mx); x++) out[y * w + x] = 1;
  }
  return out;
}

async function erode(mask: Uint8Array, w: number, h: number, radius: number): Promise<Uint8Array> {
  const { cv } = await opencv();
  const src = cv.matFromArray(h, w, cv.CV_8UC1, mask);
  const dst = new cv.Mat();
  const kernel = cv.getStructuringElement(cv.MORPH_ELLIPSE, new cv.Size(2 * radius + 1, 2 * radius + 1));
  try {
    cv.erode(src, dst, kernel);
    return new Uint8Array(dst.data);
  } finally {
    src.delete();
    dst.delete();
    kernel.delete();
  }
}

async function grabCut(rgb: Uint8Array, w: number, h: number, seeds: Uint8Array): Promise<Uint8Array> {
  const { cv } = await opencv();
  const img = cv.matFromArray(h, w, cv.CV_8UC3, rgb);
  const mask = cv.matFromArray(h, w, cv.CV_8UC1, seeds);
  const bgdModel = new cv.Mat();
  const fgdModel = new cv.Mat();
  const rect = new cv.Rect(0, 0, w, h);
  try {
    // GrabCut refuses a mask without both kinds of seed; the frame border is always backdrop.
    cv.grabCut(img, mask, rect, bgdModel, fgdModel, 4, cv.GC_INIT_WITH_MASK);
    return new Uint8Array(mask.data);
  } finally {
    img.delete();
    mask.delete();
    bgdModel.delete();
    fgdModel.delete();
  }
}

/**
 * Fills straight runs of backdrop that have product on both sides within a third of the product's
 * extent: a label band or a stripe the colour of the backdrop crossing the product, which GrabCut's
 * colour models would otherwise cut out of it.
 */
function bridgeBands(p: Float32Array, w: number, h: number): void {
  const { box } = maskExtent(p, w, h, 0.5);
  if (!box) return;
  const { x0, y0, x1, y1 } = box;
  const fill = new Uint8Array(w * h);
  const runs = (count: number, length: number, at: (k: number, i: number) => number, maxGap: number) => {
    for (let k = 0; k < count; k++) {
      let last = -1;
      for (let i = 0; i < length; i++) {
        if (p[at(k, i)] < 0.5) continue;
        if (last >= 0 && i - last > 1 && i - last - 1 <= maxGap) for (let j = last + 1; j < i; j++) fill[at(k, j)] = 1;
        last = i;
      }
    }
  };
  runs(w, h, (x, y) => y * w + x, Math.round((y1 - y0 + 1) / 3));
  runs(h, w, (y, x) => y * w + x, Math.round((x1 - x0 + 1) / 3));
  for (let i = 0; i < fill.length; i++) if (fill[i]) p[i] = 1;
}

/** [1 2 1]² blur of a 0/1 map, so the guided upsampling has a rim to work with. */
function softenInPlace(p: Float32Array, w: number, h: number): void {
  const tmp = new Float32Array(p.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      tmp[i] = (p[x > 0 ? i - 1 : i] + 2 * p[i] + p[x < w - 1 ? i + 1 : i]) / 4;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      p[i] = (tmp[y > 0 ? i - w : i] + 2 * tmp[i] + tmp[y < h - 1 ? i + w : i]) / 4;
    }
  }
}
