import { cameraCentre, imageUp, type PosedCamera, type Vec3 } from '../poses/camera.js';
import { cross, dot, normalize, symmetricEigen } from '../poses/linear-algebra.js';
import type { PreparedView } from './prepared-view.js';

// Structure from motion answers in an arbitrary frame (any rotation, origin and scale). Carving and the
// output want the product's own frame: y up, origin at the product, a known unit. This file finds that frame
// from the cameras alone: where their central rays meet (the product), and which way is up.

export interface ModelFrame {
  /** The cameras re-expressed in the model frame, in the same order. */
  cameras: PosedCamera[];
  /** Radius (model units) of a sphere round the origin that surely holds the product. */
  radius: number;
  /** The sparse points re-expressed in the model frame, when there were any. */
  points: Float32Array | null;
  /** How "up" was decided, for the record. */
  upFrom: 'camera_ring' | 'image_up' | 'floor';
  /** Model → cameras' frame for directions (the rows of M, as columns): for re-levelling. */
  axes: number[];
}

/** Least-squares point nearest to the rays (origin, unit direction). */
function nearestPointToRays(rays: readonly { origin: Vec3; dir: Vec3 }[]): Vec3 {
  const a = new Array<number>(9).fill(0);
  const b = [0, 0, 0];
  for (const { origin, dir } of rays) {
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) {
        const m = (r === c ? 1 : 0) - dir[r] * dir[c];
        a[r * 3 + c] += m;
        b[r] += m * origin[c];
      }
    }
  }
  return solve3(a, b);
}

function solve3(a: readonly number[], b: readonly number[]): Vec3 {
  const det = (m: readonly number[]) =>
    m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
  const d = det(a);
  const col = (k: number) => a.map((v, i) => (i % 3 === k ? b[Math.floor(i / 3)] : v));
  return [det(col(0)) / d, det(col(1)) / d, det(col(2)) / d];
}

/** The ray from a camera through a pixel (distortion ignored: the product sits near the image centre). */
function pixelRay(cam: PosedCamera, px: number, py: number): { origin: Vec3; dir: Vec3 } {
  const local = [(px - cam.cx) / cam.fx, (py - cam.cy) / cam.fy, 1];
  const r = cam.rotation;
  // World direction = Rᵀ·local.
  const dir = normalize([
    r[0] * local[0] + r[3] * local[1] + r[6] * local[2],
    r[1] * local[0] + r[4] * local[1] + r[7] * local[2],
    r[2] * local[0] + r[5] * local[1] + r[8] * local[2],
  ]);
  return { origin: cameraCentre(cam), dir };
}

/**
 * Up: people hold a phone upright, so the photos' own "up" directions agree and their mean is up (sideways
 * components cancel round a walk). When they disagree (a rig with cameras rolled or flipped, like a
 * calibrated ring), the cameras' centres lie on a ring whose normal is up, pointing to the side the cameras
 * are on (products are shot from level or above).
 */
function findUp(cams: readonly PosedCamera[], centre: Vec3): { up: Vec3; from: ModelFrame['upFrom'] } {
  const ups = cams.map(imageUp);
  const sum = ups.reduce<Vec3>((s, u) => [s[0] + u[0], s[1] + u[1], s[2] + u[2]], [0, 0, 0]);
  const agreement = Math.hypot(...sum) / cams.length;
  const centres = cams.map(cameraCentre);
  const mean = [0, 1, 2].map((k) => centres.reduce((s, c) => s + c[k], 0) / centres.length);
  const cov = new Array<number>(9).fill(0);
  for (const c of centres) for (let r = 0; r < 3; r++) for (let q = 0; q < 3; q++) cov[r * 3 + q] += (c[r] - mean[r]) * (c[q] - mean[q]);
  const eig = symmetricEigen(cov, 3);
  const ring = cams.length >= 4 && eig.values[0] < 0.1 * eig.values[1];
  if (agreement >= 0.6 || !ring) return { up: normalize(sum), from: 'image_up' };
  let normal = eig.vectors[0] as Vec3;
  const distance = centres.reduce((s, c) => s + Math.hypot(c[0] - centre[0], c[1] - centre[1], c[2] - centre[2]), 0) / centres.length;
  const offset = dot(normal, [mean[0] - centre[0], mean[1] - centre[1], mean[2] - centre[2]]);
  const sign = Math.abs(offset) > 0.03 * distance ? Math.sign(offset) : Math.sign(dot(normal, sum)) || 1;
  normal = [normal[0] * sign, normal[1] * sign, normal[2] * sign];
  return { up: normal, from: 'camera_ring' };
}

/**
 * The model frame for carving: origin where the views' central rays meet, y up, x along the first camera's
 * right (projected level), one unit = the cameras' mean distance.
 */
export function modelFrame(views: readonly PreparedView[], cams: readonly PosedCamera[], sparse?: Float32Array, upOverride?: Vec3): ModelFrame {
  const rays = views.map((v, k) => pixelRay(cams[k], (v.bbox.x0 + v.bbox.x1) / 2, (v.bbox.y0 + v.bbox.y1) / 2));
  const centre = nearestPointToRays(rays);
  const found = upOverride ? { up: upOverride, from: 'floor' as const } : findUp(cams, centre);
  const { up, from } = found;
  const firstRight: Vec3 = [cams[0].rotation[0], cams[0].rotation[1], cams[0].rotation[2]];
  let ex = normalize(cross(up, cross(firstRight, up)));
  if (!Number.isFinite(ex[0])) ex = normalize(cross(up, [up[1], up[2], up[0]]));
  const ez = cross(ex, up);
  const distances = cams.map((c) => {
    const p = cameraCentre(c);
    return Math.hypot(p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]);
  });
  const scale = 1 / (distances.reduce((s, d) => s + d, 0) / distances.length);
  // p = s·M·(X − centre) with M's rows (ex, up, ez); so R' = R·Mᵀ and t' = s·(R·centre + t).
  const m = [...ex, ...up, ...ez];
  const cameras = cams.map((cam) => {
    const r = cam.rotation;
    const rotation = [0, 1, 2].flatMap((i) => [0, 1, 2].map((j) => r[i * 3] * m[j * 3] + r[i * 3 + 1] * m[j * 3 + 1] + r[i * 3 + 2] * m[j * 3 + 2]));
    const rc = [0, 1, 2].map((i) => r[i * 3] * centre[0] + r[i * 3 + 1] * centre[1] + r[i * 3 + 2] * centre[2]);
    return {
      ...cam,
      rotation: rotation as PosedCamera['rotation'],
      translation: [0, 1, 2].map((i) => scale * (rc[i] + cam.translation[i])) as Vec3,
    };
  });
  // Each view bounds the product within its box's cone: half the box diagonal at the centre's depth.
  const radii = views.map((v, k) => {
    const half = Math.hypot(v.bbox.x1 - v.bbox.x0, v.bbox.y1 - v.bbox.y0) / 2;
    const depth = cameras[k].translation[2];
    return (half / Math.min(cameras[k].fx, cameras[k].fy)) * depth;
  });
  radii.sort((a, b) => a - b);
  let points: Float32Array | null = null;
  if (sparse) {
    points = new Float32Array(sparse.length);
    for (let i = 0; i < sparse.length; i += 3) {
      const d = [sparse[i] - centre[0], sparse[i + 1] - centre[1], sparse[i + 2] - centre[2]];
      for (let j = 0; j < 3; j++) points[i + j] = scale * (m[j * 3] * d[0] + m[j * 3 + 1] * d[1] + m[j * 3 + 2] * d[2]);
    }
  }
  return { cameras, points, radius: 1.5 * radii[Math.floor(radii.length / 2)], upFrom: from, axes: m };
}

/** Direction in the model frame → the same direction in the cameras' frame (Mᵀ·v). */
export function directionToCameraFrame(frame: ModelFrame, v: readonly number[]): Vec3 {
  const m = frame.axes;
  return normalize([
    m[0] * v[0] + m[3] * v[1] + m[6] * v[2],
    m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
    m[2] * v[0] + m[5] * v[1] + m[8] * v[2],
  ]);
}

/** A table needs this many matched points round the product's foot, and this share of them on its plane. */
const MIN_FLOOR_POINTS = 30;
const MIN_FLOOR_SHARE = 0.3;

export interface Floor {
  /** Unit normal in the model frame, pointing up. */
  normal: Vec3;
  /** Height of the plane along the normal: points p on it have normal·p = offset. */
  offset: number;
}

/**
 * The table the product stands on, from the sparse points: the level plane (within 25° of the current up)
 * below the product that most points round its foot lie on. Sampled consensus: a few hundred random triples
 * of those points, the plane with most of them within a hair of it wins, if it holds a good share of them.
 * Null when no such plane stands out (a plain backdrop, a cloth with no texture), and then the cameras' up is
 * kept.
 */
export function findFloor(points: Float32Array, inside: { min: number[]; max: number[] }): Floor | null {
  const cx = (inside.min[0] + inside.max[0]) / 2;
  const cz = (inside.min[2] + inside.max[2]) / 2;
  const reach = Math.hypot(inside.max[0] - inside.min[0], inside.max[2] - inside.min[2]) / 2;
  const height = inside.max[1] - inside.min[1];
  const tolerance = height / 100;
  // Only points round the product's foot can be the table; the product's own points never vote.
  const around: Vec3[] = [];
  for (let i = 0; i < points.length; i += 3) {
    if (Math.hypot(points[i] - cx, points[i + 2] - cz) > reach) around.push([points[i], points[i + 1], points[i + 2]]);
  }
  const n = around.length;
  if (n < MIN_FLOOR_POINTS) return null;
  let seed = 12345;
  const rnd = () => (seed = (seed * 16807) % 2147483647) % n;
  let best: Floor | null = null;
  let bestCount = 0;
  for (let trial = 0; trial < 400; trial++) {
    const [pa, pb, pc] = [around[rnd()], around[rnd()], around[rnd()]];
    let normal = normalize(cross(sub(pb, pa), sub(pc, pa)));
    if (!Number.isFinite(normal[0])) continue;
    if (normal[1] < 0) normal = [-normal[0], -normal[1], -normal[2]];
    if (normal[1] < Math.cos((25 * Math.PI) / 180)) continue;
    const offset = dot(normal, pa);
    // Below the product's middle: the table, not a shelf above it.
    if (offset > (inside.min[1] + inside.max[1]) / 2 - height / 4) continue;
    let count = 0;
    for (const p of around) if (Math.abs(dot(normal, p) - offset) < tolerance) count++;
    if (count > bestCount) {
      bestCount = count;
      best = { normal, offset };
    }
  }
  return bestCount >= Math.max(MIN_FLOOR_POINTS, MIN_FLOOR_SHARE * n) ? best : null;
}

const sub = (a: readonly number[], b: readonly number[]): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
