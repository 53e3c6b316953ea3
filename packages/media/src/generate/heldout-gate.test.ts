import { describe, expect, it } from 'vitest';
import { MediaError } from '../errors.js';
import type { Mat3, PosedCamera, Vec3 } from '../poses/camera.js';
import { resolveHints } from './generator.js';
import { cameraCoverage, misplacedViews, requireCoverage, requireEnoughPlaced, spreadViews } from './heldout-gate.js';
import { prepareViews } from './prepared-view.js';
import { calibrateTurntable, hullBounds, turntablePosedCameras } from './turntable-camera.js';
import { renderTurntable, type Shape } from './turntable-fixtures.test-support.js';

/** A flat box: seen from its side it is a quarter as wide as from its front. */
const BOX: Shape = { kind: 'box', width: 0.4, height: 0.3, depth: 0.1 };

/** A pinhole camera at `azimuthDeg` around the origin (y up), `elevationDeg` above it, looking at the origin. */
function ringCamera(view: number, azimuthDeg: number, elevationDeg = 0, distance = 1): PosedCamera {
  const a = (azimuthDeg * Math.PI) / 180;
  const e = (elevationDeg * Math.PI) / 180;
  const centre: Vec3 = [distance * Math.cos(e) * Math.sin(a), distance * Math.sin(e), distance * Math.cos(e) * Math.cos(a)];
  const forward = centre.map((c) => -c / distance) as Vec3;
  const right = [forward[2], 0, -forward[0]].map((v, _, r) => v / Math.hypot(r[0], r[2])) as Vec3;
  const down: Vec3 = [
    forward[1] * right[2] - forward[2] * right[1],
    forward[2] * right[0] - forward[0] * right[2],
    forward[0] * right[1] - forward[1] * right[0],
  ];
  const rotation = [...right, ...down, ...forward] as Mat3;
  const translation = [0, 1, 2].map((r) => -(rotation[r * 3] * centre[0] + rotation[r * 3 + 1] * centre[1] + rotation[r * 3 + 2] * centre[2])) as Vec3;
  return { view, width: 640, height: 480, fx: 500, fy: 500, cx: 320, cy: 240, k1: 0, k2: 0, rotation, translation };
}

const ring = (azimuths: number[], elevation = 0) => azimuths.map((a, i) => ringCamera(i, a, elevation));
const ORIGIN = [0, 0, 0];

describe('the held-out gate: counts', () => {
  it('needs 8 placed photos and 60% of those that show the product, and says so with the same numbers', () => {
    expect(() => requireEnoughPlaced(8, 8, {})).not.toThrow();
    expect(() => requireEnoughPlaced(9, 15, {})).not.toThrow();
    const few = (() => {
      try {
        requireEnoughPlaced(3, 16, { views_total: 16 });
      } catch (e) {
        return e as MediaError;
      }
    })();
    expect(few).toBeInstanceOf(MediaError);
    expect(few).toMatchObject({ reason: 'poses_not_found', details: { views_placed: 3, views_found: 16, views_needed: 10, views_total: 16 } });
    expect(few!.message).toMatch(/^Only 3 of 16 photos that show the product could be placed in 3D; at least 10 are needed/);
    // 60 % of 20 is 12: 11 placed is not enough, although it is more than 8.
    expect(() => requireEnoughPlaced(11, 20, {})).toThrow(/at least 12 are needed/);
    expect(() => requireEnoughPlaced(7, 7, {})).toThrow(/at least 8 are needed/);
  });
});

describe('the held-out gate: coverage', () => {
  it('measures the widest azimuth gap and the elevations', () => {
    const coverage = cameraCoverage(ring([0, 40, 90, 130, 180, 220, 270, 310], 20), ORIGIN);
    expect(coverage.largest_gap_deg).toBeCloseTo(50, 5);
    expect(coverage.elevation_min_deg).toBeCloseTo(20, 5);
    expect(coverage.elevation_max_deg).toBeCloseTo(20, 5);
  });

  it('lets a 100° gap pass and refuses a wider one, naming the photos on its edges and the one it faces away from', () => {
    expect(() => requireCoverage(ring([0, 45, 90, 135, 180, 225, 260]), ORIGIN, {})).not.toThrow();
    const cams = ring([0, 20, 40, 60, 80, 100, 120, 140, 160, 180]);
    let error: MediaError | undefined;
    try {
      requireCoverage(cams, ORIGIN, { views_total: 10 });
    } catch (e) {
      error = e as MediaError;
    }
    expect(error).toMatchObject({ reason: 'partial_coverage', details: { views_total: 10, coverage: { largest_gap_deg: 180 } } });
    // The gap runs from photo 10 (180°) round to photo 1 (0°); its middle is 270°, the back of photo 5 or 6 (80°, 100°).
    expect(error!.message).toMatch(/180\u00b0 arc, between photos 10 and 1 \(the side facing away from photo [56]\)/);
  });
});

describe('the held-out gate: which views are left out', () => {
  it('picks up to 8 views spread evenly by azimuth', () => {
    const azimuths = Array.from({ length: 24 }, (_, i) => (i * 15 + 7) % 360);
    const picked = spreadViews(ring(azimuths), ORIGIN, 8).map((k) => azimuths[k]).sort((a, b) => a - b);
    expect(picked).toHaveLength(8);
    const gaps = picked.map((a, i) => (i === 0 ? a + 360 - picked.at(-1)! : a - picked[i - 1]));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(45);
    expect(spreadViews(ring([0, 90, 180]), ORIGIN, 8)).toHaveLength(3);
  });
});

describe('the held-out gate: views placed wrongly', () => {
  it('finds a camera turned away from where its photo was taken, and only that one', async () => {
    const views = await renderTurntable(BOX, { views: 12, size: 256, pixelsPerMetre: 500 });
    const prepared = await prepareViews(views, resolveHints({ heightMetres: 0.3 }));
    const cams = turntablePosedCameras(prepared, calibrateTurntable(prepared, 0.3));
    const box = hullBounds(prepared, calibrateTurntable(prepared, 0.3), [0, 0.3])!;
    const input = { views: prepared, cams, box, floorY: 0, ceilingY: 0.3, centre: [0, 0.15, 0] };
    expect(await misplacedViews(input)).toEqual([]);
    // Photo 4 (index 3, at 90°, where the box is 0.1 m wide) placed at 180° (where it is 0.4 m wide): its outline no
    // longer fits the shape the other photos carve (IoU 0.25; the right photos stay at 0.70 or more).
    const moved = turntablePosedCameras([prepared[3]], calibrateTurntable([{ ...prepared[3], azimuthDeg: prepared[3].azimuthDeg + 90 }], 0.3))[0];
    expect(await misplacedViews({ ...input, cams: cams.map((cam, k) => (k === 3 ? moved : cam)) })).toEqual([3]);
  });
});
