import { describe, expect, it } from 'vitest';
import type { PosedCamera } from '../../poses/camera.js';
import { consistentDepths } from './depth-consistency.js';
import { sweepDepth, type SweepImage, type SweepResult, type SweepTask } from './plane-sweep.js';
import type { StereoView } from './stereo-views.js';

// A wall one metre in front of three cameras side by side (10 cm apart, looking straight at it), painted
// two ways: a real pattern, and a steep smooth ramp (what shading on plaster looks like). Then the
// consistency check's rule for depths that would cut new space out of the hull.

const SIZE = 64;
const F = 100;
const IDENTITY = [1, 0, 0, 0, 1, 0, 0, 0, 1];

/** Grey levels of the wall at world x, y (metres). */
type Paint = (x: number, y: number) => number;

const pattern: Paint = (x, y) => 128 + 50 * Math.sin(40 * x) * Math.cos(37 * y) + 35 * Math.sin(91 * x + 13 * y) + 20 * Math.cos(67 * y - 29 * x);
// 3 grey levels per pixel: a 7 × 7 window of it has a standard deviation of 6, over the old flatness limit of 4.
const ramp: Paint = (x) => 126 + 300 * x;

function camera(offsetX: number, paint: Paint): SweepImage {
  const gray = new Uint8Array(SIZE * SIZE);
  for (let v = 0; v < SIZE; v++) {
    for (let u = 0; u < SIZE; u++) {
      const x = (u + 0.5 - SIZE / 2) / F + offsetX;
      const y = (v + 0.5 - SIZE / 2) / F;
      gray[v * SIZE + u] = Math.max(0, Math.min(255, Math.round(paint(x, y))));
    }
  }
  // x_cam = R·X + t: a camera at world x = offsetX.
  return { width: SIZE, height: SIZE, gray, fx: F, fy: F, cx: SIZE / 2, cy: SIZE / 2, rotation: IDENTITY, translation: [-offsetX, 0, 0] };
}

function task(): SweepTask {
  const n = SIZE * SIZE;
  return { ref: 0, neighbours: [1, 2], near: new Float32Array(n).fill(0.8), far: new Float32Array(n).fill(1.25), mask: new Uint8Array(n).fill(1), radius: 3, maxPlanes: 160, minScore: 0.6, minTexture: 4 };
}

/** The pixels whose windows both neighbours see whole. */
function interior(): number[] {
  const out: number[] = [];
  for (let v = 6; v < SIZE - 6; v++) for (let u = 16; u < SIZE - 16; u++) out.push(v * SIZE + u);
  return out;
}

describe('plane sweep', () => {
  it('finds a painted wall at its depth, and says how much texture each depth stood on', () => {
    const images = [0, -0.1, 0.1].map((x) => camera(x, pattern));
    const result = sweepDepth(images, task());
    const pixels = interior();
    const measured = pixels.filter((i) => result.depth[i] > 0);
    expect(measured.length).toBeGreaterThan(0.95 * pixels.length);
    for (const i of measured) {
      expect(Math.abs(result.depth[i] - 1)).toBeLessThan(0.01);
      expect(result.texture[i]).toBeGreaterThan(10);
    }
  });

  it('measures nothing on a smooth ramp, which correlates as well at any depth', () => {
    const images = [0, -0.1, 0.1].map((x) => camera(x, ramp));
    const result = sweepDepth(images, task());
    const pixels = interior();
    expect(pixels.filter((i) => result.depth[i] > 0)).toEqual([]);
  });
});

describe('depth consistency', () => {
  const views: StereoView[] = [0, 0.1, 0.2, -0.1].map((x) => ({ image: camera(x, pattern), camera: {} as PosedCamera, mask: new Uint8Array(SIZE * SIZE).fill(1) }));
  /** Every photo measured the wall at 1 m; the first one's windows have `texture` grey levels left after the ramp. */
  const maps = (texture: number): SweepResult[] =>
    views.map((_, k) => ({
      depth: new Float32Array(SIZE * SIZE).fill(1),
      score: new Float32Array(SIZE * SIZE).fill(0.9),
      texture: new Float32Array(SIZE * SIZE).fill(k === 0 ? texture : 30),
    }));
  const centre = (SIZE / 2) * SIZE + SIZE / 2;
  const kept = (texture: number, hullNear: number) => {
    const near = views.map(() => new Float32Array(SIZE * SIZE).fill(hullNear));
    return consistentDepths(views, maps(texture), { near, deep: 0.05 })[0][centre] > 0;
  };

  it('keeps a confirmed depth near the hull’s surface on faint texture', () => {
    expect(kept(5, 0.98)).toBe(true);
  });

  it('keeps a confirmed depth deep behind the hull’s surface only where the texture is clear', () => {
    expect(kept(5, 0.9)).toBe(false);
    expect(kept(9, 0.9)).toBe(true);
  });
});
