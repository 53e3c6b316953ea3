/**
 * Shared post-processing of a segmenter's probability map: clean the shape at working resolution,
 * judge whether it is a product at all, then bring it to full resolution with edges that follow the
 * photo's own edges (a guided filter) instead of the staircase of a scaled-up small mask.
 */
import { maskExtent } from '../image/image-mask.js';
import { labelComponents } from '../util/label-components.js';
import { grabCutAgreement, leftover, maskFeatures, type CutoutEvidence } from './mask-features.js';
import type { CutoutInfo, CutoutMethod, Probability, RgbImage } from './segment-types.js';

/**
 * Removes specks (parts much smaller than the largest one) and fills small holes, in place. Large
 * enclosed background (the inside of a mug handle) is left see-through when the segmenter says so.
 */
export function cleanProbability(prob: Float32Array, width: number, height: number): void {
  const n = width * height;
  const parts = labelComponents(width, height, (i) => prob[i] >= 0.5, true);
  const largest = parts.areas.reduce((a, b) => Math.max(a, b), 0);
  const minPart = Math.max(largest * 0.03, n * 0.0005);
  for (let i = 0; i < n; i++) {
    const l = parts.labels[i];
    if (l >= 0 && parts.areas[l] < minPart) prob[i] = Math.min(prob[i], 0.2);
  }
  const gaps = labelComponents(width, height, (i) => prob[i] < 0.5, false);
  const sums = new Float64Array(gaps.areas.length);
  for (let i = 0; i < n; i++) if (gaps.labels[i] >= 0) sums[gaps.labels[i]] += prob[i];
  // A tiny enclosed gap is a hole; a larger one only when the segmenter half-believes it is product.
  const fill = gaps.areas.map(
    (area, l) => !gaps.touchesEdge[l] && (area <= n * 0.002 || (area <= n * 0.03 && sums[l] / area > 0.2)),
  );
  for (let i = 0; i < n; i++) {
    const l = gaps.labels[i];
    if (l >= 0 && fill[l]) prob[i] = Math.max(prob[i], 0.8);
  }
  // Contrast: a faint haze of probability over the backdrop must not become a ghost in the finished
  // image, while the rim keeps its gradient for the anti-aliasing.
  for (let i = 0; i < n; i++) {
    const t = Math.min(1, Math.max(0, (prob[i] - 0.3) / 0.4));
    prob[i] = t * t * (3 - 2 * t);
  }
}

const MIN_COVERAGE = 0.003;
const MAX_COVERAGE = 0.95;
const OK_CONFIDENCE = 0.6;
/** GrabCut seeded from a right mask kept ≥ 0.956 of it on every right tuning scene; sprawling wrong masks 0.40–0.81. */
const AGREEMENT_LOW = 0.8;
const AGREEMENT_OK = 0.93;
/** Another object left out, as a share of the mask's area: 0 beside every right tuning cut-out, ≥ 0.03 beside wrong ones. */
const LEFTOVER_OK = 0.01;
const LEFTOVER_HIGH = 0.025;
/** Right tuning cut-outs ≥ 0.927; a product taken with backdrop lettering 0.36–0.73. */
const SOLIDITY_LOW = 0.7;
const SOLIDITY_OK = 0.8;

/** 0 at or below `lo`, 1 at or above `hi`, linear between. */
function ramp(v: number, lo: number, hi: number): number {
  return Math.min(1, Math.max(0, (v - lo) / (hi - lo)));
}

/**
 * Status of a cleaned probability map. The segmenter's trust and how decisive its map is say little:
 * IS-Net is as sure of a wrong object as of the product. So the confidence is also capped by what the
 * mask looks like from outside the segmenter: whether GrabCut, seeded from the mask, keeps it
 * (`agreement`, 1 when not measured), whether the mask leaves out another object in colours the
 * backdrop never shows, and whether it is one compact thing rather than a sprawl. Each cap was set on
 * tuning scenes and checked on held-out scenes and photos (docs/images.md, "How sure a cut-out is").
 */
export function judge(p: Probability, method: CutoutMethod, evidence: CutoutEvidence = syncEvidence(p)): CutoutInfo {
  const { prob, width, height } = p;
  const { coverage } = maskExtent(prob, width, height, 0.5);
  const f = evidence;
  // Products are one or a few parts, rarely cut by two edges of the frame: scattered parts or a
  // mask running off two sides look like the surroundings leaking in.
  const shape = (f.borders === 2 ? 0.75 : 1) * (f.bigParts > 2 ? 0.8 : 1);
  const confidence = round3(Math.max(0, Math.min(1, p.trust * f.decisiveness * shape * secondOpinion(f))));
  const nothing = p.nothing || coverage < MIN_COVERAGE || coverage > MAX_COVERAGE || f.borders >= 3;
  const status = nothing ? 'none' : confidence < OK_CONFIDENCE ? 'uncertain' : 'ok';
  return { status, method, coverage: round3(coverage), confidence: nothing ? Math.min(confidence, 0.2) : confidence };
}

/** Everything the confidence is read from, GrabCut's agreement included (asynchronous: OpenCV). */
export async function gatherEvidence(p: Probability): Promise<CutoutEvidence> {
  return { ...syncEvidence(p), agreement: await grabCutAgreement(p) };
}

/** The evidence without GrabCut's opinion (agreement 1: not measured), e.g. for an alpha an author drew. */
function syncEvidence(p: Probability): CutoutEvidence {
  return { ...maskFeatures(p), leftover: leftover(p), agreement: 1 };
}

/** 1 when nothing outside the segmenter doubts the mask; below OK_CONFIDENCE when something clearly does. */
export function secondOpinion(f: CutoutEvidence): number {
  const kept = 0.5 + 0.5 * ramp(f.agreement, AGREEMENT_LOW, AGREEMENT_OK);
  const alone = 1 - 0.5 * ramp(f.leftover, LEFTOVER_OK, LEFTOVER_HIGH);
  const compact = 0.5 + 0.5 * ramp(f.solidity, SOLIDITY_LOW, SOLIDITY_OK);
  return Math.min(kept, alone, compact);
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}

/** Bilinear resampling of a single float channel (pixel centres aligned). */
export function resampleBilinear(src: Float32Array, sw: number, sh: number, dw: number, dh: number): Float32Array {
  const out = new Float32Array(dw * dh);
  const { i0: xi, i1: xj, f: xf } = axis(sw, dw);
  const { i0: yi, i1: yj, f: yf } = axis(sh, dh);
  for (let y = 0; y < dh; y++) {
    const r0 = yi[y] * sw;
    const r1 = yj[y] * sw;
    const fy = yf[y];
    for (let x = 0; x < dw; x++) {
      const a = src[r0 + xi[x]] + (src[r0 + xj[x]] - src[r0 + xi[x]]) * xf[x];
      const b = src[r1 + xi[x]] + (src[r1 + xj[x]] - src[r1 + xi[x]]) * xf[x];
      out[y * dw + x] = a + (b - a) * fy;
    }
  }
  return out;
}

function axis(sn: number, dn: number): { i0: Int32Array; i1: Int32Array; f: Float32Array } {
  const i0 = new Int32Array(dn);
  const i1 = new Int32Array(dn);
  const f = new Float32Array(dn);
  const scale = sn / dn;
  for (let d = 0; d < dn; d++) {
    const s = Math.min(sn - 1, Math.max(0, (d + 0.5) * scale - 0.5));
    i0[d] = Math.floor(s);
    i1[d] = Math.min(sn - 1, i0[d] + 1);
    f[d] = s - i0[d];
  }
  return { i0, i1, f };
}

export function luma(image: RgbImage): Float32Array {
  const n = image.width * image.height;
  const out = new Float32Array(n);
  const d = image.data;
  for (let i = 0; i < n; i++) out[i] = (0.299 * d[i * 3] + 0.587 * d[i * 3 + 1] + 0.114 * d[i * 3 + 2]) / 255;
  return out;
}

/** Mean over a (2r+1)² window, clamped at the borders, via a summed-area table. */
function boxMean(src: Float32Array, width: number, height: number, r: number): Float32Array {
  const w1 = width + 1;
  const sat = new Float64Array(w1 * (height + 1));
  for (let y = 0; y < height; y++) {
    let row = 0;
    for (let x = 0; x < width; x++) {
      row += src[y * width + x];
      sat[(y + 1) * w1 + x + 1] = sat[y * w1 + x + 1] + row;
    }
  }
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const ya = Math.max(0, y - r);
    const yb = Math.min(height, y + r + 1);
    for (let x = 0; x < width; x++) {
      const xa = Math.max(0, x - r);
      const xb = Math.min(width, x + r + 1);
      const s = sat[yb * w1 + xb] - sat[ya * w1 + xb] - sat[yb * w1 + xa] + sat[ya * w1 + xa];
      out[y * width + x] = s / ((yb - ya) * (xb - xa));
    }
  }
  return out;
}

/**
 * Full-resolution soft alpha from the working-resolution probability: the fast guided filter (the
 * linear coefficients are fitted at working resolution, upsampled, then applied to the full-resolution
 * luma), so the rim follows the photo's real edge with sub-pixel anti-aliasing. Far from the rim the
 * plain upsampled probability is kept, so texture inside the product cannot punch holes into it.
 */
export function upsampleAlpha(p: Probability, full: RgbImage): Uint8Array {
  const { prob, width: w, height: h } = p;
  const W = full.width;
  const H = full.height;
  const I = luma(p.guide);
  const r = 2;
  const eps = 1e-3;
  const meanI = boxMean(I, w, h, r);
  const meanP = boxMean(prob, w, h, r);
  const ip = new Float32Array(w * h);
  const ii = new Float32Array(w * h);
  for (let i = 0; i < ip.length; i++) {
    ip[i] = I[i] * prob[i];
    ii[i] = I[i] * I[i];
  }
  const corrIP = boxMean(ip, w, h, r);
  const corrII = boxMean(ii, w, h, r);
  const a = new Float32Array(w * h);
  const b = new Float32Array(w * h);
  for (let i = 0; i < a.length; i++) {
    const varI = corrII[i] - meanI[i] * meanI[i];
    a[i] = (corrIP[i] - meanI[i] * meanP[i]) / (varI + eps);
    b[i] = meanP[i] - a[i] * meanI[i];
  }
  const meanA = boxMean(a, w, h, r);
  const meanB = boxMean(b, w, h, r);

  const alpha = new Uint8Array(W * H);
  const { i0: xi, i1: xj, f: xf } = axis(w, W);
  const { i0: yi, i1: yj, f: yf } = axis(h, H);
  const d = full.data;
  const lerp2 = (m: Float32Array, r0: number, r1: number, x: number, fy: number) => {
    const top = m[r0 + xi[x]] + (m[r0 + xj[x]] - m[r0 + xi[x]]) * xf[x];
    const bot = m[r1 + xi[x]] + (m[r1 + xj[x]] - m[r1 + xi[x]]) * xf[x];
    return top + (bot - top) * fy;
  };
  for (let y = 0; y < H; y++) {
    const r0 = yi[y] * w;
    const r1 = yj[y] * w;
    const fy = yf[y];
    for (let x = 0; x < W; x++) {
      const o = y * W + x;
      const pv = lerp2(prob, r0, r1, x, fy);
      let v: number;
      if (pv <= 0.02 || pv >= 0.98) {
        v = pv;
      } else {
        const l = (0.299 * d[o * 3] + 0.587 * d[o * 3 + 1] + 0.114 * d[o * 3 + 2]) / 255;
        v = lerp2(meanA, r0, r1, x, fy) * l + lerp2(meanB, r0, r1, x, fy);
      }
      alpha[o] = v <= 0 ? 0 : v >= 1 ? 255 : Math.round(v * 255);
    }
  }
  return alpha;
}
