import type { PreparedView } from './prepared-view.js';

export type Vec3 = [number, number, number];

/**
 * An orthographic camera on a turntable orbit. Azimuth θ and elevation φ put the
 * camera in direction (sin θ cos φ, sin φ, cos θ cos φ) from the product: θ = 0 looks
 * at the front (+z), θ = 90° at the right side (+x). Image x runs along `right`, image
 * y down along -`up`.
 */
export interface ViewCamera {
  right: Vec3;
  up: Vec3;
  /** Unit vector from the product towards the camera. */
  toCamera: Vec3;
  /** Metres per image pixel. */
  metresPerPixel: number;
  /** Image pixel where the turntable axis crosses the height `upCentre`. */
  centreX: number;
  centreY: number;
  /** Coordinate along `up` (metres) that lands on centreY. */
  upCentre: number;
}

export function orbitBasis(azimuthDeg: number, elevationDeg: number): Pick<ViewCamera, 'right' | 'up' | 'toCamera'> {
  const t = (azimuthDeg * Math.PI) / 180;
  const p = (elevationDeg * Math.PI) / 180;
  const [st, ct, sp, cp] = [Math.sin(t), Math.cos(t), Math.sin(p), Math.cos(p)];
  return {
    toCamera: [st * cp, sp, ct * cp],
    right: [ct, 0, -st],
    up: [-st * sp, cp, -ct * sp],
  };
}

/**
 * Places every view's camera under the turntable assumption, with the product's
 * real height `heightMetres`:
 * - the box's vertical extent stands for the same real extent in every view (one
 *   shared vertical scale, whatever each photo's zoom or crop);
 * - the turntable axis runs through the box's horizontal centre, and the box's
 *   vertical centre is the product's mid-height. Both are exact for products that
 *   are symmetric about the axis, and at elevation 0 the vertical one always is.
 * Above elevation 0 the box also spans some of the footprint, so the carved size
 * comes out approximate; the caller rescales the result to the real height anyway.
 */
export function calibrateTurntable(views: readonly PreparedView[], heightMetres: number): ViewCamera[] {
  return views.map((view) => {
    const basis = orbitBasis(view.azimuthDeg, view.elevationDeg);
    const boxHeight = view.bbox.y1 - view.bbox.y0;
    return {
      ...basis,
      metresPerPixel: heightMetres / boxHeight,
      centreX: (view.bbox.x0 + view.bbox.x1) / 2,
      centreY: (view.bbox.y0 + view.bbox.y1) / 2,
      upCentre: (heightMetres / 2) * basis.up[1],
    };
  });
}

/** Image pixel coordinates of a world point. */
export function projectToImage(cam: ViewCamera, x: number, y: number, z: number): [number, number] {
  const r = cam.right;
  const u = cam.up;
  const s = cam.metresPerPixel;
  return [cam.centreX + (r[0] * x + r[1] * y + r[2] * z) / s, cam.centreY - (u[0] * x + u[1] * y + u[2] * z - cam.upCentre) / s];
}

export interface Bounds3 {
  min: Vec3;
  max: Vec3;
}

/**
 * Box that certainly holds everything the silhouettes allow. Horizontally each view
 * confines the product to a slab |p · right| ≤ half its box width; the slabs'
 * intersection is a convex polygon whose corners we enumerate (a tiny linear
 * programme). Null when the slabs leave a direction open (all views parallel).
 */
export function hullBounds(views: readonly PreparedView[], cams: readonly ViewCamera[]): Bounds3 | null {
  const lines: { nx: number; nz: number; d: number }[] = [];
  cams.forEach((cam, k) => {
    const half = ((views[k].bbox.x1 - views[k].bbox.x0) / 2) * cam.metresPerPixel;
    lines.push({ nx: cam.right[0], nz: cam.right[2], d: half }, { nx: -cam.right[0], nz: -cam.right[2], d: half });
  });
  const feasible = (x: number, z: number) => lines.every((l) => l.nx * x + l.nz * z <= l.d * (1 + 1e-9) + 1e-12);
  let minX = Infinity;
  let maxX = -Infinity;
  let minZ = Infinity;
  let maxZ = -Infinity;
  for (let i = 0; i < lines.length; i++) {
    for (let j = i + 1; j < lines.length; j++) {
      const a = lines[i];
      const b = lines[j];
      const det = a.nx * b.nz - a.nz * b.nx;
      if (Math.abs(det) < 1e-6) continue;
      const x = (a.d * b.nz - a.nz * b.d) / det;
      const z = (a.nx * b.d - a.d * b.nx) / det;
      if (!feasible(x, z)) continue;
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minZ = Math.min(minZ, z);
      maxZ = Math.max(maxZ, z);
    }
  }
  if (!Number.isFinite(minX) || !Number.isFinite(minZ)) return null;
  const radius = Math.max(Math.hypot(minX, minZ), Math.hypot(minX, maxZ), Math.hypot(maxX, minZ), Math.hypot(maxX, maxZ));

  // Vertically: p · up = y cos φ - (horizontal part) sin φ must stay within the box's
  // vertical half extent around upCentre; the horizontal part is at most `radius`.
  let minY = -Infinity;
  let maxY = Infinity;
  cams.forEach((cam, k) => {
    const half = ((views[k].bbox.y1 - views[k].bbox.y0) / 2) * cam.metresPerPixel;
    const cosP = cam.up[1];
    const slack = radius * Math.hypot(cam.up[0], cam.up[2]);
    minY = Math.max(minY, (cam.upCentre - half - slack) / cosP);
    maxY = Math.min(maxY, (cam.upCentre + half + slack) / cosP);
  });
  if (!(maxY > minY)) return null;
  return { min: [minX, minY, minZ], max: [maxX, maxY, maxZ] };
}
