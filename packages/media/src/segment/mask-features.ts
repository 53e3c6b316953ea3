/**
 * What a cut-out's own shape and colours say about whether it is the product: the second opinion
 * behind `cutout.confidence`. A segmenter is as sure of a wrong object as of the right one, so the
 * confidence is not read from its probabilities alone (see docs/images.md, "How sure a cut-out is").
 */
import { maskExtent } from '../image/image-mask.js';
import { labelComponents } from '../util/label-components.js';
import { opencv } from './opencv.js';
import type { Probability } from './segment-types.js';

export interface MaskFeatures {
  /** mean |2p − 1| around the product: 1 = the segmenter never hesitates */
  decisiveness: number;
  /** borders of the frame the mask covers more than a sliver of */
  borders: number;
  /** share of the frame's perimeter that is product */
  edgeShare: number;
  /** parts at least a tenth of the largest */
  bigParts: number;
  /** mask area over the area of its convex hull: 1 for a box, low for scattered or sprawling shapes */
  solidity: number;
  /** 1 − Bhattacharyya coefficient of colour histograms inside and just outside the mask */
  colourSeparation: number;
}

/** The features plus the two opinions from outside the mask's own shape. */
export interface CutoutEvidence extends MaskFeatures {
  /** IoU of the mask with GrabCut seeded from it; 1 when not measured */
  agreement: number;
  /** area of objects left outside the mask in colours the backdrop never shows, over the mask's area */
  leftover: number;
}

/** Borders of the frame on which the mask covers more than a sliver. */
export function bordersTouched(prob: Float32Array, width: number, height: number): number {
  return edgeCounts(prob, width, height).filter((c, k) => c / (k < 2 ? width : height) > 0.05).length;
}

function edgeCounts(prob: Float32Array, width: number, height: number): number[] {
  const counts = [0, 0, 0, 0];
  for (let x = 0; x < width; x++) {
    if (prob[x] >= 0.5) counts[0]++;
    if (prob[(height - 1) * width + x] >= 0.5) counts[1]++;
  }
  for (let y = 0; y < height; y++) {
    if (prob[y * width] >= 0.5) counts[2]++;
    if (prob[y * width + width - 1] >= 0.5) counts[3]++;
  }
  return counts;
}

export function maskFeatures(p: Probability): MaskFeatures {
  const { prob, width, height } = p;
  const { box } = maskExtent(prob, width, height, 0.5);
  const counts = edgeCounts(prob, width, height);
  const features: MaskFeatures = {
    decisiveness: 0,
    borders: bordersTouched(prob, width, height),
    edgeShare: (counts[0] + counts[1] + counts[2] + counts[3]) / (2 * (width + height)),
    bigParts: 0,
    solidity: 0,
    colourSeparation: 0,
  };
  if (!box) return features;
  const { x0, y0, x1, y1 } = box;
  // Around the product only: a vast, certain background would otherwise hide an unsure product.
  const mx = Math.round((x1 - x0 + 1) * 0.1);
  const my = Math.round((y1 - y0 + 1) * 0.1);
  let sum = 0;
  let count = 0;
  for (let y = Math.max(0, y0 - my); y <= Math.min(height - 1, y1 + my); y++) {
    for (let x = Math.max(0, x0 - mx); x <= Math.min(width - 1, x1 + mx); x++) {
      sum += Math.abs(2 * prob[y * width + x] - 1);
      count++;
    }
  }
  features.decisiveness = sum / count;
  const parts = labelComponents(width, height, (i) => prob[i] >= 0.5, true).areas;
  const largest = parts.reduce((a, b) => Math.max(a, b), 0);
  features.bigParts = parts.filter((a) => a >= largest * 0.1).length;
  features.solidity = solidity(prob, width, height);
  if (p.guide.data.length === width * height * 3) features.colourSeparation = colourSeparation(p);
  return features;
}

/** Area of the mask over the area of the convex hull of its row ends (Andrew's monotone chain). */
function solidity(prob: Float32Array, width: number, height: number): number {
  const points: Array<[number, number]> = [];
  let area = 0;
  for (let y = 0; y < height; y++) {
    let first = -1;
    let last = -1;
    for (let x = 0; x < width; x++) {
      if (prob[y * width + x] < 0.5) continue;
      area++;
      if (first < 0) first = x;
      last = x;
    }
    if (first >= 0) points.push([first, y], [last + 1, y], [first, y + 1], [last + 1, y + 1]);
  }
  if (points.length < 3) return 0;
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o: number[], a: number[], b: number[]) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const hull: Array<[number, number]> = [];
  for (const pass of [points, [...points].reverse()]) {
    const start = hull.length;
    for (const pt of pass) {
      while (hull.length >= start + 2 && cross(hull[hull.length - 2], hull[hull.length - 1], pt) <= 0) hull.pop();
      hull.push(pt);
    }
    hull.pop();
  }
  let twice = 0;
  for (let i = 0; i < hull.length; i++) {
    const [ax, ay] = hull[i];
    const [bx, by] = hull[(i + 1) % hull.length];
    twice += ax * by - bx * ay;
  }
  const hullArea = Math.abs(twice) / 2;
  return hullArea > 0 ? Math.min(1, area / hullArea) : 0;
}

/** 1 − overlap of 8×8×8-bin colour histograms of the mask and of a ring of backdrop around it. */
function colourSeparation(p: Probability): number {
  const { prob, width, height, guide } = p;
  const { box } = maskExtent(prob, width, height, 0.5);
  if (!box) return 0;
  const ring = Math.round(Math.max(box.x1 - box.x0, box.y1 - box.y0) * 0.15) + 2;
  const inside = new Float64Array(512);
  const outside = new Float64Array(512);
  let nIn = 0;
  let nOut = 0;
  for (let y = Math.max(0, box.y0 - ring); y <= Math.min(height - 1, box.y1 + ring); y++) {
    for (let x = Math.max(0, box.x0 - ring); x <= Math.min(width - 1, box.x1 + ring); x++) {
      const i = y * width + x;
      const bin = ((guide.data[i * 3] >> 5) << 6) | ((guide.data[i * 3 + 1] >> 5) << 3) | (guide.data[i * 3 + 2] >> 5);
      if (prob[i] >= 0.9) {
        inside[bin]++;
        nIn++;
      } else if (prob[i] <= 0.1) {
        outside[bin]++;
        nOut++;
      }
    }
  }
  if (!nIn || !nOut) return 0;
  let bc = 0;
  for (let b = 0; b < 512; b++) bc += Math.sqrt((inside[b] / nIn) * (outside[b] / nOut));
  return 1 - bc;
}

/**
 * Regions outside the mask in colours the frame's border never shows (another object left out:
 * maybe the product itself), summed over those larger than a speck, over the mask's area. Colours
 * are compared by chromaticity, so a shadow or the shading of the backdrop is not a new object.
 */
/** More chromaticity bins than this, each ≥ 1 % of the frame's border band: a busy backdrop. */
const BUSY_COLOURS = 4;

export function leftover(p: Probability): number {
  const { prob, width, height, guide } = p;
  if (guide.data.length !== width * height * 3) return 0;
  const d = guide.data;
  const BINS = 32;
  const bin = (i: number) => {
    const s = d[i * 3] + d[i * 3 + 1] + d[i * 3 + 2] + 1;
    return Math.min(BINS - 1, Math.floor((d[i * 3] / s) * BINS)) * BINS + Math.min(BINS - 1, Math.floor((d[i * 3 + 1] / s) * BINS));
  };
  // Too dark for its chromaticity to mean anything.
  const dim = (i: number) => d[i * 3] + d[i * 3 + 1] + d[i * 3 + 2] < 90;
  const band = Math.max(2, Math.round(Math.min(width, height) * 0.03));
  const seen = new Uint32Array(BINS * BINS);
  let area = 0;
  let bandPixels = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (prob[i] >= 0.5) area++;
      else if (x < band || y < band || x >= width - band || y >= height - band) {
        seen[bin(i)]++;
        bandPixels++;
      }
    }
  }
  if (!area || !bandPixels) return 0;
  // A busy backdrop (many colours around the frame) has objects of its own: nothing can be read here.
  const colours = seen.filter((c) => c >= bandPixels * 0.01).length;
  if (colours > BUSY_COLOURS) return 0;
  const known = new Uint8Array(BINS * BINS);
  for (let b = 0; b < BINS * BINS; b++) {
    if (!seen[b]) continue;
    const r = Math.floor(b / BINS);
    const g = b % BINS;
    for (let dr = -1; dr <= 1; dr++) {
      for (let dg = -1; dg <= 1; dg++) {
        if (r + dr >= 0 && r + dr < BINS && g + dg >= 0 && g + dg < BINS) known[(r + dr) * BINS + g + dg] = 1;
      }
    }
  }
  const parts = labelComponents(width, height, (i) => prob[i] < 0.1 && !dim(i) && !known[bin(i)], true);
  const speck = Math.max(area * 0.01, width * height * 0.0005);
  // A region running off the frame is scenery (a busy backdrop), not an object standing in the photo.
  return parts.areas.filter((a, l) => a >= speck && !parts.touchesEdge[l]).reduce((a, b) => a + b, 0) / area;
}

/**
 * Agreement (IoU) between the mask and GrabCut seeded from it: inside "probably product", outside
 * "probably backdrop", the frame's outermost pixels backdrop for sure. GrabCut re-decides every pixel
 * from colour models of both sides; a mask that mixes unlike things is redrawn, a clean one is kept.
 */
export async function grabCutAgreement(p: Probability, side = 192): Promise<number> {
  const { prob, width, height, guide } = p;
  if (guide.data.length !== width * height * 3) return 1;
  const { cv } = await opencv();
  const scale = Math.min(1, side / Math.max(width, height));
  const w = Math.max(8, Math.round(width * scale));
  const h = Math.max(8, Math.round(height * scale));
  const rgb = new Uint8Array(w * h * 3);
  const seeds = new Uint8Array(w * h);
  let fg = 0;
  for (let y = 0; y < h; y++) {
    const sy = Math.min(height - 1, Math.floor(((y + 0.5) * height) / h));
    for (let x = 0; x < w; x++) {
      const sx = Math.min(width - 1, Math.floor(((x + 0.5) * width) / w));
      const s = sy * width + sx;
      const i = y * w + x;
      for (let c = 0; c < 3; c++) rgb[i * 3 + c] = guide.data[s * 3 + c];
      const edge = x === 0 || y === 0 || x === w - 1 || y === h - 1;
      const inside = prob[s] >= 0.5;
      if (inside) fg++;
      seeds[i] = edge && !inside ? 0 : inside ? 3 : 2;
    }
  }
  if (fg === 0 || fg === w * h) return 1;
  const img = cv.matFromArray(h, w, cv.CV_8UC3, rgb);
  const mask = cv.matFromArray(h, w, cv.CV_8UC1, seeds);
  const bgd = new cv.Mat();
  const fgd = new cv.Mat();
  try {
    // GrabCut's colour models start from k-means on OpenCV's global generator: seed it, so the same
    // mask gets the same opinion whatever ran before it in the process.
    cv.setRNGSeed(0x2b);
    cv.grabCut(img, mask, new cv.Rect(0, 0, w, h), bgd, fgd, 3, cv.GC_INIT_WITH_MASK);
    let inter = 0;
    let union = 0;
    for (let i = 0; i < w * h; i++) {
      const a = seeds[i] === 3;
      const b = mask.data[i] === 1 || mask.data[i] === 3;
      if (a && b) inter++;
      if (a || b) union++;
    }
    return union ? inter / union : 1;
  } catch {
    return 1;
  } finally {
    img.delete();
    mask.delete();
    bgd.delete();
    fgd.delete();
  }
}
