import type { PosedCamera } from '../../poses/camera.js';
import { resolveHints } from '../generator.js';
import { marchingCubes, type ScalarGrid, type TriangleMesh } from '../marching-cubes.js';
import { carvePosedHull, fillSmallHoles, insideBox, posedSamplers } from '../posed-carve.js';
import { prepareViews, type PreparedView } from '../prepared-view.js';
import { compareSurfaces, samplePoints, visiblePoints, type ConcaveCapture } from './stereo-fixtures.test-support.js';
import { carveWithStereo, stereoCoverage, type StereoSurface } from './stereo-surface.js';

// The stereo stage on a synthetic capture in its own world frame (metres, table at y = 0), with the true
// cameras: the exact-mask hull, then stereo, each scored against the true surface: how far the model's
// surface lies from the true one (all of it), and how much of the true surface the photos can see it found.

export interface StageScore {
  chamfer: number;
  fscore: number;
  precision: number;
  recall: number;
}

export interface StereoStage {
  prepared: PreparedView[];
  cams: PosedCamera[];
  hull: ScalarGrid;
  hullMesh: TriangleMesh;
  stereo: StereoSurface;
  stereoMesh: TriangleMesh;
  coverage: number;
  diagonal: number;
  scores: { hull: StageScore; stereo: StageScore };
}

export async function runStereoStage(capture: ConcaveCapture, opts: { resolution?: number; threads?: number; maxSide?: number; truth?: boolean } = {}): Promise<StereoStage> {
  const prepared = await prepareViews(
    capture.shots.map((s) => ({ image: s.image, mask: s.mask })),
    resolveHints({}),
  );
  const cams = prepared.map((v) => capture.cameras[v.index]);
  const samplers = posedSamplers(prepared.map(fillSmallHoles), cams);
  const coarse = await carvePosedHull(samplers, { min: [-0.2, 0, -0.2], max: [0.2, 0.3, 0.2] }, { resolution: 48, floorY: 0 });
  const box = insideBox(coarse)!;
  const pad = 2 * coarse.step;
  const hull = await carvePosedHull(
    samplers,
    { min: box.min.map((v) => v - pad) as [number, number, number], max: box.max.map((v) => v + pad) as [number, number, number] },
    { resolution: opts.resolution ?? 128, floorY: 0 },
  );
  const hullMesh = marchingCubes(hull);
  const stereo = await carveWithStereo(hull, prepared, cams, { threads: opts.threads, maxSide: opts.maxSide, floorY: 0 });
  const stereoMesh = marchingCubes(stereo.grid);
  const coverage = stereoCoverage(stereoMesh, stereo.grid, stereo.measured);
  const none = { chamfer: NaN, fscore: NaN, precision: NaN, recall: NaN };
  if (opts.truth === false) {
    const [sx, sy, sz] = meshSize(hullMesh.positions);
    return { prepared, cams, hull, hullMesh, stereo, stereoMesh, coverage, diagonal: Math.hypot(sx, sy, sz), scores: { hull: none, stereo: none } };
  }
  const truthAll = samplePoints(capture.truth, 30_000, 7);
  const truth = visiblePoints(truthAll, capture.truth, capture.cameras, 0.0015);
  const [tx, ty, tz] = meshSize(truthAll);
  const diagonal = Math.hypot(tx, ty, tz);
  const score = (mesh: TriangleMesh) => compareSurfaces(samplePoints(mesh, 30_000, 3), truth, 0.01 * diagonal, truthAll);
  return { prepared, cams, hull, hullMesh, stereo, stereoMesh, coverage, diagonal, scores: { hull: score(hullMesh), stereo: score(stereoMesh) } };
}

/** Whether the segment from `a` to `b` crosses any triangle of the mesh (Möller–Trumbore). */
export function segmentHits(mesh: TriangleMesh, a: readonly number[], b: readonly number[]): boolean {
  const { positions: p, indices } = mesh;
  const d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  for (let t = 0; t < indices.length; t += 3) {
    const [i, j, k] = [indices[t] * 3, indices[t + 1] * 3, indices[t + 2] * 3];
    const e1 = [p[j] - p[i], p[j + 1] - p[i + 1], p[j + 2] - p[i + 2]];
    const e2 = [p[k] - p[i], p[k + 1] - p[i + 1], p[k + 2] - p[i + 2]];
    const h = [d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]];
    const det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
    if (Math.abs(det) < 1e-15) continue;
    const s = [a[0] - p[i], a[1] - p[i + 1], a[2] - p[i + 2]];
    const u = (s[0] * h[0] + s[1] * h[1] + s[2] * h[2]) / det;
    if (u < 0 || u > 1) continue;
    const q = [s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]];
    const v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
    if (v < 0 || u + v > 1) continue;
    const f = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
    if (f >= 0 && f <= 1) return true;
  }
  return false;
}

/** The mesh's box size per axis (x, y, z). */
export function meshSize(positions: Float32Array): number[] {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i++) {
    lo[i % 3] = Math.min(lo[i % 3], positions[i]);
    hi[i % 3] = Math.max(hi[i % 3], positions[i]);
  }
  return [0, 1, 2].map((a) => hi[a] - lo[a]);
}
