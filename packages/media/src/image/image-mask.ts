import { labelComponents } from '../util/label-components.js';
import { window3 } from '../util/window3.js';

/**
 * Cut-out of a product photographed on a plain backdrop, computed on a small RGB copy (≤ 512 px):
 * the backdrop colour is whatever dominates the border, anything clearly different is product.
 * This is deliberately classical: it is exact enough for studio / marketplace photos, runs in a
 * few milliseconds, and needs no model weights.
 */

export type Rgb = [number, number, number];

export interface BackgroundEstimate {
  colour: Rgb;
  /** 95th percentile distance of the backdrop's own pixels to `colour` (sensor noise, JPEG, vignetting) */
  noise: number;
  /** share of the border band that belongs to the backdrop cluster */
  share: number;
}

export interface MaskResult {
  /** w*h bytes, 0 or 255 */
  mask: Uint8Array;
  background: BackgroundEstimate;
  /** false when the border has no dominant colour: the whole frame is treated as the subject */
  cutOut: boolean;
}

/** Below this border share there is no backdrop to remove (lifestyle shot, full-bleed crop). */
const MIN_BACKDROP_SHARE = 0.35;

function dist(rgb: Uint8Array, p: number, c: Rgb): number {
  const dr = rgb[p] - c[0];
  const dg = rgb[p + 1] - c[1];
  const db = rgb[p + 2] - c[2];
  return Math.sqrt(dr * dr + dg * dg + db * db);
}

function borderPixels(width: number, height: number): Int32Array {
  const band = Math.max(2, Math.round(Math.min(width, height) * 0.04));
  const out: number[] = [];
  for (let y = 0; y < height; y++) {
    const edgeRow = y < band || y >= height - band;
    for (let x = 0; x < width; x++) {
      if (edgeRow || x < band || x >= width - band) out.push(y * width + x);
    }
  }
  return Int32Array.from(out);
}

/** Dominant colour cluster of the border band: coarse 3-D histogram peak, then a trimmed mean. */
export function estimateBackground(rgb: Uint8Array, width: number, height: number): BackgroundEstimate {
  const border = borderPixels(width, height);
  const hist = new Int32Array(16 * 16 * 16);
  for (const i of border) {
    const p = i * 3;
    hist[((rgb[p] >> 4) << 8) | ((rgb[p + 1] >> 4) << 4) | (rgb[p + 2] >> 4)]++;
  }
  // Score each bin with its 3x3x3 neighbourhood so noise straddling a bin edge is not split.
  let best = 0;
  let bestScore = -1;
  for (let bin = 0; bin < hist.length; bin++) {
    if (hist[bin] === 0) continue;
    const r = bin >> 8;
    const g = (bin >> 4) & 15;
    const b = bin & 15;
    let score = 0;
    for (let dr = -1; dr <= 1; dr++) {
      for (let dg = -1; dg <= 1; dg++) {
        for (let db = -1; db <= 1; db++) {
          const rr = r + dr;
          const gg = g + dg;
          const bb = b + db;
          if (rr < 0 || gg < 0 || bb < 0 || rr > 15 || gg > 15 || bb > 15) continue;
          score += hist[(rr << 8) | (gg << 4) | bb];
        }
      }
    }
    if (score > bestScore) {
      bestScore = score;
      best = bin;
    }
  }
  let colour: Rgb = [((best >> 8) << 4) + 8, (((best >> 4) & 15) << 4) + 8, ((best & 15) << 4) + 8];
  let members: number[] = [];
  for (let iter = 0; iter < 4; iter++) {
    members = [];
    const sum = [0, 0, 0];
    for (const i of border) {
      const p = i * 3;
      if (dist(rgb, p, colour) < 40) {
        members.push(p);
        sum[0] += rgb[p];
        sum[1] += rgb[p + 1];
        sum[2] += rgb[p + 2];
      }
    }
    if (members.length === 0) break;
    colour = [sum[0] / members.length, sum[1] / members.length, sum[2] / members.length];
  }
  const d = members.map((p) => dist(rgb, p, colour)).sort((a, b) => a - b);
  const noise = d.length ? d[Math.min(d.length - 1, Math.floor(d.length * 0.95))] : 0;
  return { colour: colour.map((v) => Math.round(v)) as Rgb, noise, share: members.length / border.length };
}

/** Colour distance beyond which a pixel is product, adapted to how noisy the backdrop is. */
export function foregroundThreshold(noise: number): number {
  return Math.min(90, Math.max(20, 2.5 * noise + 10));
}

/** 3x3 majority vote on a 0/255 mask: the binary median, removes salt-and-pepper specks. */
function majority3(mask: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(mask.length);
  const around = new Int32Array(9);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const total = window3(x, y, width, height, around);
      let on = 0;
      for (let k = 0; k < total; k++) if (mask[around[k]]) on++;
      out[y * width + x] = on * 2 > total ? 255 : 0;
    }
  }
  return out;
}

/** `rgb` is 3-channel interleaved, `width*height` pixels. */
export function computeMask(rgb: Uint8Array, width: number, height: number): MaskResult {
  const n = width * height;
  const background = estimateBackground(rgb, width, height);
  if (background.share < MIN_BACKDROP_SHARE) {
    return { mask: new Uint8Array(n).fill(255), background, cutOut: false };
  }
  const high = foregroundThreshold(background.noise);
  const low = high * 0.7;
  const distance = new Float32Array(n);
  for (let i = 0; i < n; i++) distance[i] = dist(rgb, i * 3, background.colour);

  // Hysteresis: faint pixels (anti-aliased rims, low-contrast panels) count only when they touch
  // clearly-different ones, so backdrop noise above `low` does not create specks.
  const strong = new Uint8Array(n);
  for (let i = 0; i < n; i++) strong[i] = distance[i] > high ? 255 : 0;
  const grown = labelComponents(width, height, (i) => distance[i] > low, true);
  const keepLabel = new Uint8Array(grown.areas.length);
  for (let i = 0; i < n; i++) if (strong[i]) keepLabel[grown.labels[i]] = 1;
  let mask: Uint8Array = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const l = grown.labels[i];
    if (l >= 0 && keepLabel[l]) mask[i] = 255;
  }
  mask = majority3(mask, width, height);

  // Keep the big parts (one product, or a pair), drop specks of dust and texture in the backdrop.
  const parts = labelComponents(width, height, (i) => mask[i] !== 0, true);
  const largest = parts.areas.reduce((a, b) => Math.max(a, b), 0);
  const minPart = Math.max(largest * 0.08, n * 0.0005);
  for (let i = 0; i < n; i++) {
    const l = parts.labels[i];
    if (l >= 0 && parts.areas[l] < minPart) mask[i] = 0;
  }

  // Backdrop regions not reachable from the image edge are holes. Fill them, except sizeable ones
  // that are unmistakably backdrop-coloured (the inside of a mug handle should stay see-through).
  const gaps = labelComponents(width, height, (i) => mask[i] === 0, false);
  const touchesEdge = new Uint8Array(gaps.areas.length);
  const distSum = new Float64Array(gaps.areas.length);
  for (let i = 0; i < n; i++) {
    const l = gaps.labels[i];
    if (l < 0) continue;
    distSum[l] += distance[i];
    const x = i % width;
    const y = (i - x) / width;
    if (x === 0 || y === 0 || x === width - 1 || y === height - 1) touchesEdge[l] = 1;
  }
  const minSeeThrough = n * 0.003;
  for (let i = 0; i < n; i++) {
    const l = gaps.labels[i];
    if (l < 0 || touchesEdge[l]) continue;
    const seeThrough = gaps.areas[l] >= minSeeThrough && distSum[l] / gaps.areas[l] < high * 0.5;
    if (!seeThrough) mask[i] = 255;
  }
  return { mask, background, cutOut: true };
}

/** [1 2 1] separable blur so the upscaled mask gets a smooth, anti-aliased rim instead of steps. */
export function softenMask(mask: Uint8Array, width: number, height: number): Uint8Array {
  const tmp = new Uint16Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const l = mask[x > 0 ? i - 1 : i];
      const r = mask[x < width - 1 ? i + 1 : i];
      tmp[i] = l + 2 * mask[i] + r;
    }
  }
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const u = tmp[y > 0 ? i - width : i];
      const d = tmp[y < height - 1 ? i + width : i];
      out[i] = Math.round((u + 2 * tmp[i] + d) / 16);
    }
  }
  return out;
}

/** Fraction and bounding box (in mask pixels) of values ≥ `threshold` (128 for an 8-bit mask, 0.5 for a probability map). */
export function maskExtent(
  mask: ArrayLike<number>,
  width: number,
  height: number,
  threshold = 128,
): { coverage: number; box: { x0: number; y0: number; x1: number; y1: number } | null } {
  let count = 0;
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (mask[y * width + x] < threshold) continue;
      count++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  return { coverage: count / (width * height), box: count ? { x0, y0, x1, y1 } : null };
}
