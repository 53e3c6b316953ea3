import { describe, expect, it } from 'vitest';
import {
  blurThreshold,
  differenceHash,
  hammingDistance,
  nearDuplicate,
  pathFrameCount,
  selectFrames,
  selectPathFrames,
  tinyThumb,
  type FrameFeatures,
} from './frame-select.js';

/** A frame whose picture is a bright bar at `view` (0..15): different views look different. */
function frame(index: number, view: number, sharpness: number): FrameFeatures {
  const w = 64;
  const h = 48;
  const grey = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) grey[y * w + x] = Math.abs(x - view * 4) < 4 || Math.abs(y - view * 3) < 3 ? 230 : 30;
  return { index, sharpness, hash: differenceHash(grey, w, h), tiny: tinyThumb(grey, w, h) };
}

describe('hashing', () => {
  it('gives identical pictures distance 0 and different ones a large distance', () => {
    expect(hammingDistance(frame(0, 3, 1).hash, frame(1, 3, 1).hash)).toBe(0);
    expect(hammingDistance(frame(0, 3, 1).hash, frame(1, 11, 1).hash)).toBeGreaterThan(8);
    expect(hammingDistance(0n, (1n << 64n) - 1n)).toBe(64);
    expect(nearDuplicate(frame(0, 5, 1), frame(9, 5, 1))).toBe(true);
    expect(nearDuplicate(frame(0, 5, 1), frame(9, 12, 1))).toBe(false);
  });
});

describe('blurThreshold', () => {
  it('follows the crisp frames even when most of the clip is blurred', () => {
    const frames = [...Array.from({ length: 30 }, (_, i) => frame(i, i % 16, 10)), ...Array.from({ length: 18 }, (_, i) => frame(30 + i, i % 16, 400))];
    const t = blurThreshold(frames);
    expect(t).toBeGreaterThan(10);
    expect(t).toBeLessThan(400);
  });
});

describe('selectFrames', () => {
  it('drops blurred frames relative to the clip', () => {
    const frames = Array.from({ length: 16 }, (_, i) => frame(i, i, i % 4 === 0 ? 20 : 300));
    const chosen = selectFrames(frames, { min: 4, max: 24 });
    expect(chosen).toEqual([1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15]);
  });

  it('keeps one frame per repeated view, the sharpest, wherever it occurs', () => {
    const frames = [frame(0, 1, 100), frame(1, 1, 150), frame(2, 1, 120), frame(3, 7, 100), frame(4, 1, 110), frame(5, 9, 100)];
    expect(selectFrames(frames, { min: 1, max: 10 })).toEqual([1, 3, 5]);
  });

  it('thins to max while covering the whole timeline, including a lone late view', () => {
    // 0..29 crisp (12 distinct views, then repeats), 30..44 blurred, 45 a new crisp view after the blur.
    const frames = [
      ...Array.from({ length: 30 }, (_, i) => frame(i, i % 12, 300 + (i % 12))),
      ...Array.from({ length: 15 }, (_, i) => frame(30 + i, i, 5)),
      frame(45, 14, 250),
    ];
    const chosen = selectFrames(frames, { min: 4, max: 8 });
    expect(chosen).toHaveLength(8);
    expect(chosen.every((i) => i < 30 || i === 45)).toBe(true);
    expect(chosen[0]).toBeLessThan(8);
    expect(chosen).toContain(45);
  });

  it('tops up to min with mildly soft distinct frames, never with flat ones', () => {
    const frames = [frame(0, 0, 400), frame(1, 1, 400), frame(2, 2, 400), frame(3, 3, 150), frame(4, 4, 150), frame(5, 5, 1)];
    // threshold = max(0.5·median, 0.3·p75) = 200: 3 and 4 are soft (≥ 100), 5 is flat
    expect(selectFrames(frames, { min: 5, max: 10 })).toEqual([0, 1, 2, 3, 4]);
    expect(selectFrames(frames, { min: 3, max: 10 })).toEqual([0, 1, 2]);
  });

  it('returns nothing for a clip of flat frames', () => {
    expect(selectFrames([frame(0, 0, 0.5), frame(1, 3, 1)], { min: 12, max: 24 })).toEqual([]);
    expect(selectFrames([], { min: 12, max: 24 })).toEqual([]);
  });
});

/** A frame of a pan: its thumbnail is a ramp shifted by `at` grey levels, so consecutive frames differ by the step. */
function panFrame(index: number, at: number, sharpness: number): FrameFeatures {
  const tiny = Uint8Array.from({ length: 256 }, (_, i) => Math.min(255, (i % 16) * 8 + at));
  return { index, sharpness, hash: 0n, tiny };
}

describe('selectPathFrames', () => {
  it('keeps one frame per equal stretch of the path, never a blurred one', () => {
    // 200 candidates moving 1 grey level each (path 199), every fourth blurred.
    const frames = Array.from({ length: 200 }, (_, i) => panFrame(i, i * 0.5, i % 4 === 0 ? 5 : 300 + (i % 7)));
    const chosen = selectPathFrames(frames, { min: 24, max: 60, durationSeconds: 20 });
    expect(chosen.length).toBe(pathFrameCount(199 * 0.5, 20, { min: 24, max: 60 }));
    expect(chosen.every((i) => i % 4 !== 0)).toBe(true);
    const gaps = chosen.slice(1).map((c, k) => c - chosen[k]);
    expect(Math.max(...gaps)).toBeLessThanOrEqual((2 * 200) / chosen.length);
  });

  it('gives a pause one frame: stretches follow the motion, not the clock', () => {
    const moving = Array.from({ length: 100 }, (_, i) => panFrame(i, i, 300));
    const still = Array.from({ length: 100 }, (_, i) => panFrame(100 + i, 99, 300 + (i === 50 ? 50 : 0)));
    const chosen = selectPathFrames([...moving, ...still], { min: 24, max: 60, durationSeconds: 20 });
    expect(chosen.filter((i) => i >= 100).length).toBeLessThanOrEqual(1);
    expect(chosen.length).toBeGreaterThanOrEqual(24);
  });

  it('counts frames from the motion and the duration, within the bounds', () => {
    expect(pathFrameCount(1000, 30, { min: 24, max: 60 })).toBe(60);
    expect(pathFrameCount(1000, 10, { min: 24, max: 60 })).toBe(30);
    expect(pathFrameCount(40, 30, { min: 24, max: 60 })).toBe(24);
    expect(pathFrameCount(100, 30, { min: 24, max: 60 })).toBe(40);
  });

  it('gives a clip that never moves one frame, and a clip of flat frames none', () => {
    const still = Array.from({ length: 50 }, (_, i) => panFrame(i, 10, 300 + i));
    expect(selectPathFrames(still, { min: 24, max: 60, durationSeconds: 5 })).toEqual([49]);
    expect(selectPathFrames(Array.from({ length: 10 }, (_, i) => panFrame(i, i * 5, 1)), { min: 24, max: 60, durationSeconds: 5 })).toEqual([]);
  });
});
