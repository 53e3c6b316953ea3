import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { alignSimilarity } from '../../poses/pose-compare.js';
import { capturesDir, templeCameras, templeMask } from '../../poses/poses.test-support.js';
import { transformInto, type Mat4 } from '../../gltf/model-bounds.js';
import { resolveHints } from '../generator.js';
import type { TriangleMesh } from '../marching-cubes.js';
import { generatePosedHull } from '../posed-generator.js';
import { prepareViews } from '../prepared-view.js';
import { compareSurfaces, nearestPointFinder, samplePoints } from './stereo-fixtures.test-support.js';

// A model that came through the HTTP API, scored against a reference model made from the same photos with the
// calibrated cameras (bench/real-captures.mjs bundles this file for the temple). The API's model lives in its own
// frame: COLMAP's cameras, turned upright and scaled to the given height. It is laid onto the reference by a rigid
// fit (rotation and translation, never scale: both claim to be in metres at the given height), started from turns
// about the vertical and upside down, and refined by nearest-point iterations.

/** Every triangle of a GLB's scene in world space, in metres. */
export async function glbMesh(glb: Uint8Array): Promise<TriangleMesh> {
  const doc = await new NodeIO().readBinary(glb);
  const positions: number[] = [];
  const indices: number[] = [];
  const local: number[] = [];
  const point = [0, 0, 0];
  for (const scene of doc.getRoot().listScenes()) {
    scene.traverse((node) => {
      const mesh = node.getMesh();
      if (!mesh) return;
      const world = node.getWorldMatrix() as Mat4;
      for (const prim of mesh.listPrimitives()) {
        const position = prim.getAttribute('POSITION');
        if (!position) continue;
        const base = positions.length / 3;
        for (let v = 0; v < position.getCount(); v++) {
          position.getElement(v, local);
          point[0] = point[1] = point[2] = 0;
          transformInto(point, world, local, 1);
          positions.push(point[0], point[1], point[2]);
        }
        const idx = prim.getIndices();
        const count = idx ? idx.getCount() : position.getCount();
        for (let i = 0; i < count; i++) indices.push(base + (idx ? idx.getScalar(i) : i));
      }
    });
  }
  return { positions: Float32Array.from(positions), indices: Uint32Array.from(indices) };
}

type Rigid = { r: number[]; t: number[] };

const apply = (m: Rigid, p: Float32Array): Float32Array => {
  const out = new Float32Array(p.length);
  const { r, t } = m;
  for (let i = 0; i < p.length; i += 3) {
    const [x, y, z] = [p[i], p[i + 1], p[i + 2]];
    out[i] = r[0] * x + r[1] * y + r[2] * z + t[0];
    out[i + 1] = r[3] * x + r[4] * y + r[5] * z + t[1];
    out[i + 2] = r[6] * x + r[7] * y + r[8] * z + t[2];
  }
  return out;
};

const compose = (a: Rigid, b: Rigid): Rigid => {
  // a after b
  const r = new Array(9).fill(0);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) r[i * 3 + j] += a.r[i * 3 + k] * b.r[k * 3 + j];
  const t = [0, 1, 2].map((i) => a.r[i * 3] * b.t[0] + a.r[i * 3 + 1] * b.t[1] + a.r[i * 3 + 2] * b.t[2] + a.t[i]);
  return { r, t };
};

const centroid = (p: Float32Array) => {
  const c = [0, 0, 0];
  for (let i = 0; i < p.length; i += 3) for (let a = 0; a < 3; a++) c[a] += p[i + a];
  return c.map((x) => x / (p.length / 3));
};

/** Nearest-point iterations from `start`: the rigid motion laying `model` onto `reference`, and its mean distance. */
/** A point with nothing within RINGS grid cells of it is left out of a fit, and counts that far in its mean. */
const RINGS = 5;

function icp(model: Float32Array, reference: Float32Array, start: Rigid, iterations: number, cell: number, nearest: ReturnType<typeof nearestPointFinder>): { motion: Rigid; mean: number } {
  let motion = start;
  let mean = Infinity;
  for (let it = 0; it < iterations; it++) {
    const moved = apply(motion, model);
    const pairs: { p: number[]; q: number[]; d: number }[] = [];
    let total = 0;
    for (let i = 0; i < moved.length; i += 3) {
      const { index, distance } = nearest(moved[i], moved[i + 1], moved[i + 2]);
      total += index >= 0 ? distance : RINGS * cell;
      if (index >= 0) pairs.push({ p: [moved[i], moved[i + 1], moved[i + 2]], q: [reference[index], reference[index + 1], reference[index + 2]], d: distance });
    }
    mean = total / (moved.length / 3);
    if (pairs.length < 3) break;
    // The worst tenth is left out of each fit: parts one model has and the other lacks must not drag it.
    pairs.sort((x, y) => x.d - y.d);
    const kept = pairs.slice(0, Math.max(3, Math.floor(pairs.length * 0.9)));
    const cp = [0, 1, 2].map((a) => kept.reduce((s, x) => s + x.p[a], 0) / kept.length);
    const cq = [0, 1, 2].map((a) => kept.reduce((s, x) => s + x.q[a], 0) / kept.length);
    // The best similarity's rotation is the best rigid motion's: the scale it also finds is left out.
    const r = alignSimilarity(
      kept.map((x) => x.p),
      kept.map((x) => x.q),
    ).rotation;
    const t = [0, 1, 2].map((i) => cq[i] - (r[i * 3] * cp[0] + r[i * 3 + 1] * cp[1] + r[i * 3 + 2] * cp[2]));
    motion = compose({ r, t }, motion);
  }
  return { motion, mean };
}

const aboutY = (deg: number, flip: boolean): number[] => {
  const [c, s] = [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];
  const turn = [c, 0, s, 0, 1, 0, -s, 0, c];
  // upside down: a half turn about x first
  return flip ? compose({ r: turn, t: [0, 0, 0] }, { r: [1, 0, 0, 0, -1, 0, 0, 0, -1], t: [0, 0, 0] }).r : turn;
};

/** `model` laid onto `reference` by the best rigid fit from 12 turns about the vertical, upright and upside down. */
export function alignRigid(model: Float32Array, reference: Float32Array, diagonal: number): { aligned: Float32Array; turnDeg: number; flipped: boolean } {
  const cm = centroid(model);
  const cr = centroid(reference);
  const cell = diagonal / 20;
  const every = (p: Float32Array, n: number) => {
    const step = Math.max(1, Math.floor(p.length / 3 / n));
    const out: number[] = [];
    for (let i = 0; i < p.length; i += 3 * step) out.push(p[i], p[i + 1], p[i + 2]);
    return Float32Array.from(out);
  };
  const coarse = every(model, 800);
  const nearest = nearestPointFinder(reference, cell, RINGS);
  let best = { mean: Infinity, motion: { r: [1, 0, 0, 0, 1, 0, 0, 0, 1], t: [0, 0, 0] } as Rigid, turnDeg: 0, flipped: false };
  for (const flipped of [false, true]) {
    for (let deg = 0; deg < 360; deg += 30) {
      const r = aboutY(deg, flipped);
      const t = [0, 1, 2].map((i) => cr[i] - (r[i * 3] * cm[0] + r[i * 3 + 1] * cm[1] + r[i * 3 + 2] * cm[2]));
      const fit = icp(coarse, reference, { r, t }, 10, cell, nearest);
      if (fit.mean < best.mean) best = { ...fit, turnDeg: deg, flipped };
    }
  }
  const fine = icp(every(model, 8000), reference, best.motion, 30, cell, nearest);
  return { aligned: apply(fine.motion, model), turnDeg: best.turnDeg, flipped: best.flipped };
}

/**
 * The temple's reference: the model the posed generator makes from the calibrated cameras and the photos' masks,
 * hull only (with `stereo`, the calibrated cameras' stereo model instead, to check the score against the bench's).
 */
export async function templeReference(height: number, stereo = false): Promise<Buffer | null> {
  const dir = capturesDir();
  if (!dir) return null;
  const truth = templeCameras(dir);
  const prepared = await prepareViews(
    await Promise.all(
      truth.names.map(async (name) => {
        const image = readFileSync(join(dir, 'temple', name));
        return { image, mask: await templeMask(image) };
      }),
    ),
    resolveHints({}),
  );
  const recovery = { cameras: truth.cameras, viewsTotal: truth.cameras.length, source: 'given' as const, timings: {} };
  const hull = await generatePosedHull(prepared, recovery, { triangleBudget: 20_000, textureSize: 1024, dimensions: { height }, stereo }, async () => undefined);
  return hull.glb;
}

/**
 * F-score at `share` of the reference's diagonal and Chamfer distance (in that diagonal's units) of `model` against
 * `reference`, both GLBs in metres, after the rigid fit.
 */
export async function scoreAgainstReference(model: Uint8Array, reference: Uint8Array, share = 0.02, samples = 30_000) {
  const ref = samplePoints(await glbMesh(reference), samples, 5);
  const own = samplePoints(await glbMesh(model), samples, 3);
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < ref.length; i += 3) for (let a = 0; a < 3; a++) [lo[a], hi[a]] = [Math.min(lo[a], ref[i + a]), Math.max(hi[a], ref[i + a])];
  const diagonal = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  const { aligned, turnDeg, flipped } = alignRigid(own, ref, diagonal);
  const s = compareSurfaces(aligned, ref, share * diagonal);
  return { fscore: s.fscore, precision: s.precision, recall: s.recall, chamfer: s.chamfer / diagonal, diagonal, turnDeg, flipped };
}
