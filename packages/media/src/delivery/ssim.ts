/**
 * Structural similarity (Wang, Bovik, Sheikh and Simoncelli, 2004) on luminance, with the usual 11-tap
 * Gaussian window (sigma 1.5) and constants K1 = 0.01, K2 = 0.03 for 8-bit values. Only pixels under
 * `mask` count, so a product on a transparent background is compared on the product, not on the empty
 * frame around it that would lift any score toward 1.
 */

const K1 = 0.01;
const K2 = 0.03;
const L = 255;
const C1 = (K1 * L) ** 2;
const C2 = (K2 * L) ** 2;
const RADIUS = 5;
const SIGMA = 1.5;

function gaussianKernel(): Float64Array {
  const k = new Float64Array(2 * RADIUS + 1);
  let sum = 0;
  for (let i = -RADIUS; i <= RADIUS; i++) sum += k[i + RADIUS] = Math.exp(-(i * i) / (2 * SIGMA * SIGMA));
  for (let i = 0; i < k.length; i++) k[i] /= sum;
  return k;
}
const KERNEL = gaussianKernel();

/** Separable Gaussian filter; edges clamp, so a border pixel is averaged with copies of itself. */
function blur(src: Float64Array, w: number, h: number): Float64Array {
  const tmp = new Float64Array(w * h);
  const out = new Float64Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let i = -RADIUS; i <= RADIUS; i++) s += KERNEL[i + RADIUS] * src[y * w + Math.min(w - 1, Math.max(0, x + i))];
      tmp[y * w + x] = s;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let i = -RADIUS; i <= RADIUS; i++) s += KERNEL[i + RADIUS] * tmp[Math.min(h - 1, Math.max(0, y + i)) * w + x];
      out[y * w + x] = s;
    }
  }
  return out;
}

/**
 * Mean SSIM of two equally sized grey images (values 0–255) over the pixels where `mask` is set (all
 * pixels when it is absent). Identical images give exactly 1; an empty mask gives 1 (nothing differs).
 */
export function ssimGray(a: Float64Array, b: Float64Array, w: number, h: number, mask?: Uint8Array): number {
  if (a.length !== w * h || b.length !== w * h) throw new Error('ssim: images must both be w×h');
  const ab = new Float64Array(w * h);
  const aa = new Float64Array(w * h);
  const bb = new Float64Array(w * h);
  for (let i = 0; i < w * h; i++) {
    ab[i] = a[i] * b[i];
    aa[i] = a[i] * a[i];
    bb[i] = b[i] * b[i];
  }
  const muA = blur(a, w, h);
  const muB = blur(b, w, h);
  const eAA = blur(aa, w, h);
  const eBB = blur(bb, w, h);
  const eAB = blur(ab, w, h);
  let sum = 0;
  let n = 0;
  for (let i = 0; i < w * h; i++) {
    if (mask && !mask[i]) continue;
    const ma = muA[i];
    const mb = muB[i];
    // Rounding can leave a variance a hair below zero on flat regions.
    const va = Math.max(0, eAA[i] - ma * ma);
    const vb = Math.max(0, eBB[i] - mb * mb);
    const cov = eAB[i] - ma * mb;
    sum += ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
    n++;
  }
  return n === 0 ? 1 : sum / n;
}

/** Grey level of an RGBA pixel composited over mid grey, so a missing part and a dark part both show. */
function luminanceOverGrey(rgba: Uint8Array, i: number): number {
  const alpha = rgba[i + 3] / 255;
  const y = 0.299 * rgba[i] + 0.587 * rgba[i + 1] + 0.114 * rgba[i + 2];
  return y * alpha + 128 * (1 - alpha);
}

/**
 * SSIM of two RGBA renders of the same view, over the product's pixels: those covered (alpha > 0) in
 * either image, so a part the delivery lost or gained counts as much as one it kept.
 */
export function ssimRgba(a: Uint8Array, b: Uint8Array, w: number, h: number): number {
  if (a.length !== w * h * 4 || b.length !== w * h * 4) throw new Error('ssim: RGBA images must both be w×h');
  const ga = new Float64Array(w * h);
  const gb = new Float64Array(w * h);
  const mask = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) {
    ga[p] = luminanceOverGrey(a, p * 4);
    gb[p] = luminanceOverGrey(b, p * 4);
    mask[p] = a[p * 4 + 3] > 0 || b[p * 4 + 3] > 0 ? 1 : 0;
  }
  return ssimGray(ga, gb, w, h, mask);
}
