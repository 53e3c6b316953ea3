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
  /** How "up" was decided, for the record. */
  upFrom: 'camera_ring' | 'image_up';
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
export function modelFrame(views: readonly PreparedView[], cams: readonly PosedCamera[]): ModelFrame {
  const rays = views.map((v, k) => pixelRay(cams[k], (v.bbox.x0 + v.bbox.x1) / 2, (v.bbox.y0 + v.bbox.y1) / 2));
  const centre = nearestPointToRays(rays);
  const { up, from } = findUp(cams, centre);
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
  return { cameras, radius: 1.25 * radii[Math.floor(radii.length / 2)], upFrom: from };
}
