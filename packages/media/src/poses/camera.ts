import { rotationFromQuaternion } from './linear-algebra.js';

// A camera recovered (or given) for one photo: pinhole intrinsics with optional radial distortion, and a pose.
// Conventions follow COLMAP and OpenCV: x_cam = R·X + t, the camera looks down +z, image y grows downwards,
// pixel centres at integer + 0.5 (COLMAP's principal point is in that convention too).

export type Vec3 = [number, number, number];
/** Row-major 3×3. */
export type Mat3 = [number, number, number, number, number, number, number, number, number];

export interface PosedCamera {
  /** Index of the photo in the caller's list. */
  view: number;
  /** Image size the intrinsics refer to (display orientation). */
  width: number;
  height: number;
  fx: number;
  fy: number;
  cx: number;
  cy: number;
  /** Radial distortion (COLMAP SIMPLE_RADIAL / RADIAL / OPENCV's first two terms); 0 when absent. */
  k1: number;
  k2: number;
  /** World → camera rotation. */
  rotation: Mat3;
  /** World → camera translation. */
  translation: Vec3;
}

export type PoseSource = 'sfm' | 'mat' | 'given' | 'assumed';

export interface CameraRecovery {
  cameras: PosedCamera[];
  /** How many photos were offered; those without a camera did not register. */
  viewsTotal: number;
  source: PoseSource;
  /** Sparse scene points in the cameras' frame (x, y, z per point), when structure from motion made them. */
  points?: Float32Array;
  /** Seconds spent per step, for estimates. */
  timings: Record<string, number>;
  /** The plane the product stands on in the cameras' frame (normal pointing up), when the capture measured it (the mat). */
  floor?: { normal: Vec3; offset: number };
  /** Metres per unit of the cameras' frame, when the capture measured it (the mat); else the scale is unknown. */
  metresPerUnit?: number;
}

/** Camera centre in world coordinates: −Rᵀt. */
export function cameraCentre(cam: Pick<PosedCamera, 'rotation' | 'translation'>): Vec3 {
  const r = cam.rotation;
  const [tx, ty, tz] = cam.translation;
  return [-(r[0] * tx + r[3] * ty + r[6] * tz), -(r[1] * tx + r[4] * ty + r[7] * tz), -(r[2] * tx + r[5] * ty + r[8] * tz)];
}

/** The camera's viewing direction (+z of the camera) in world coordinates. */
export function viewDirection(cam: Pick<PosedCamera, 'rotation'>): Vec3 {
  const r = cam.rotation;
  return [r[6], r[7], r[8]];
}

/** The camera's image-up direction (−y of the camera) in world coordinates. */
export function imageUp(cam: Pick<PosedCamera, 'rotation'>): Vec3 {
  const r = cam.rotation;
  return [-r[3], -r[4], -r[5]];
}

/**
 * Pixel coordinates and depth of a world point; depth ≤ 0 means behind the camera. Distortion is applied
 * so that silhouettes line up with the photo as taken.
 */
export function projectPoint(cam: PosedCamera, x: number, y: number, z: number): [number, number, number] {
  const r = cam.rotation;
  const t = cam.translation;
  const X = r[0] * x + r[1] * y + r[2] * z + t[0];
  const Y = r[3] * x + r[4] * y + r[5] * z + t[1];
  const Z = r[6] * x + r[7] * y + r[8] * z + t[2];
  const u = X / Z;
  const v = Y / Z;
  const r2 = u * u + v * v;
  const d = 1 + cam.k1 * r2 + cam.k2 * r2 * r2;
  return [cam.fx * u * d + cam.cx, cam.fy * v * d + cam.cy, Z];
}

/** Rotation matrix from a quaternion (w, x, y, z), as COLMAP writes them. */
export function quaternionToMatrix(w: number, x: number, y: number, z: number): Mat3 {
  const n = Math.hypot(w, x, y, z) || 1;
  return rotationFromQuaternion([w / n, x / n, y / n, z / n]) as Mat3;
}

/**
 * Cameras with the image scaled by (sx, sy): the recovery may run on smaller copies of the photos than the
 * ones carved and textured.
 */
export function scaleIntrinsics(cam: PosedCamera, width: number, height: number): PosedCamera {
  const sx = width / cam.width;
  const sy = height / cam.height;
  return { ...cam, width, height, fx: cam.fx * sx, fy: cam.fy * sy, cx: cam.cx * sx, cy: cam.cy * sy };
}
