import { describe, expect, it } from 'vitest';
import {
  blurThreshold,
  differenceHash,
  hammingDistance,
  nearDuplicate,
  selectFrames,
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
