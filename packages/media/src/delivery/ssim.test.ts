import { describe, expect, it } from 'vitest';
import { ssimGray, ssimRgba } from './ssim.js';

const W = 32;
const H = 32;
const filled = (v: number) => new Float64Array(W * H).fill(v);
function pattern(seed: number): Float64Array {
  const out = new Float64Array(W * H);
  for (let i = 0; i < out.length; i++) out[i] = 128 + 100 * Math.sin(i * 0.37 + seed) * Math.cos(i * 0.11);
  return out;
}

describe('ssim', () => {
  it('is exactly 1 for identical images', () => {
    expect(ssimGray(pattern(1), pattern(1), W, H)).toBe(1);
  });

  it('matches the closed form on two flat images: (2ab + C1) / (a² + b² + C1)', () => {
    // Both variances and the covariance are 0, so the structure term is C2 / C2 = 1.
    const c1 = (0.01 * 255) ** 2;
    const expected = (2 * 100 * 150 + c1) / (100 ** 2 + 150 ** 2 + c1);
    expect(ssimGray(filled(100), filled(150), W, H)).toBeCloseTo(expected, 10);
  });

  it('falls as noise grows, and a negated structure scores below zero', () => {
    const a = pattern(2);
    const noisy = (amp: number) => a.map((v, i) => v + amp * Math.sin(i * 12.9898) * 43758.5453 % 1);
    const s1 = ssimGray(a, noisy(5), W, H);
    const s2 = ssimGray(a, noisy(40), W, H);
    expect(s1).toBeLessThan(1);
    expect(s2).toBeLessThan(s1);
    const inverted = a.map((v) => 256 - v);
    expect(ssimGray(a, inverted, W, H)).toBeLessThan(0);
  });

  it('counts only masked pixels', () => {
    const a = pattern(3);
    const b = a.slice();
    for (let i = 0; i < W * H / 2; i++) b[i] = 0; // top half wiped
    const bottom = new Uint8Array(W * H);
    for (let i = W * H / 2 + 6 * W; i < W * H; i++) bottom[i] = 1; // well clear of the wiped rows' window
    expect(ssimGray(a, b, W, H, bottom)).toBeCloseTo(1, 10);
    expect(ssimGray(a, b, W, H)).toBeLessThan(0.7);
  });

  it('on RGBA renders, a part missing from one image counts against it', () => {
    const product = new Uint8Array(W * H * 4);
    for (let y = 8; y < 24; y++) for (let x = 8; x < 24; x++) product.set([200, 120, 60, 255], (y * W + x) * 4);
    const missing = product.slice();
    for (let y = 8; y < 24; y++) for (let x = 16; x < 24; x++) missing.set([0, 0, 0, 0], (y * W + x) * 4);
    expect(ssimRgba(product, product, W, H)).toBe(1);
    expect(ssimRgba(product, missing, W, H)).toBeLessThan(0.9);
    // An empty frame around both does not dilute the score: only covered pixels count.
    expect(ssimRgba(new Uint8Array(W * H * 4), new Uint8Array(W * H * 4), W, H)).toBe(1);
  });
});

describe('downsample (before SSIM on renders)', () => {
  it('averages blocks by alpha, so transparent pixels do not darken an edge', async () => {
    const { downsample } = await import('./delivery-fidelity.js');
    const data = new Uint8Array(4 * 4 * 4);
    // Top-left 2×2 block: two opaque red pixels and two transparent black ones.
    data.set([255, 0, 0, 255], 0);
    data.set([255, 0, 0, 255], 4);
    const out = downsample({ data, width: 4, height: 4 }, 2);
    expect(out.width).toBe(2);
    expect([...out.data.subarray(0, 4)]).toEqual([255, 0, 0, 128]);
    expect([...out.data.subarray(4, 8)]).toEqual([0, 0, 0, 0]);
  });
});
