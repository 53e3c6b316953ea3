import type { PosedCamera } from '../poses/camera.js';
import type { Box3 } from './posed-carve.js';
import type { PreparedView } from './prepared-view.js';

export type Vec3 = [number, number, number];

/**
 * A turntable view is carved, checked and textured like any posed photo: its orthographic camera becomes a
 * pinhole this many times the photo's field of view away, with a focal length to match, which projects the
 * product the same to within a part in ten thousand.
 */
const FAR_DISTANCE = 1e4;

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
 * - the turntable axis runs through the box's horizontal centre, and the box's
 *   vertical centre is the product's mid-height (exact for products symmetric about
 *   the axis; at elevation 0 the vertical one always is);
 * - level views: the box's height stands for the real height in every view (one
 *   shared vertical scale, whatever each photo's zoom or crop);
 * - views from above or below also see the top or bottom, so the box's height is
 *   H·cos φ + D·|sin φ| with D the footprint's depth along the view, which the other
 *   views' widths reveal; see elevationScales.
 */
export function calibrateTurntable(views: readonly PreparedView[], heightMetres: number): ViewCamera[] {
  const bases = views.map((v) => orbitBasis(v.azimuthDeg, v.elevationDeg));
  const level = views.map((v) => heightMetres / (v.bbox.y1 - v.bbox.y0));
  const scales = views.some((v) => v.elevationDeg !== 0) ? (elevationScales(views, bases, heightMetres) ?? level) : level;
  return views.map((view, k) => ({
    ...bases[k],
    metresPerPixel: scales[k],
    centreX: (view.bbox.x0 + view.bbox.x1) / 2,
    centreY: (view.bbox.y0 + view.bbox.y1) / 2,
    upCentre: (heightMetres / 2) * bases[k].up[1],
  }));
}

type Basis = Pick<ViewCamera, 'right' | 'up' | 'toCamera'>;

/**
 * Metres per pixel for views that look down (or up) at the product, modelling it as
 * a prism: box height h_k·s_k = H cos φ + |sin φ|·D_k, where D_k is the footprint's
 * extent along the view, measured on the polygon the views' widths carve out (which
 * itself depends on the scales). A fixed-point iteration settles in a few rounds for
 * anything taller than a rug seen steeply from above; null when it does not settle.
 */
function elevationScales(views: readonly PreparedView[], bases: readonly Basis[], height: number): number[] | null {
  let scales = views.map((v, k) => (height * bases[k].up[1]) / (v.bbox.y1 - v.bbox.y0));
  for (let round = 0; round < 40; round++) {
    const polygon = footprint(views, bases, scales);
    if (polygon.length === 0) return null;
    const next = views.map((v, k) => {
      const [dx, dz] = [bases[k].toCamera[0], bases[k].toCamera[2]];
      const norm = Math.hypot(dx, dz);
      let lo = Infinity;
      let hi = -Infinity;
      for (const [x, z] of polygon) {
        const t = (x * dx + z * dz) / norm;
        lo = Math.min(lo, t);
        hi = Math.max(hi, t);
      }
      const sinP = Math.abs(bases[k].toCamera[1]);
      return (height * bases[k].up[1] + sinP * (hi - lo)) / (v.bbox.y1 - v.bbox.y0);
    });
    const change = Math.max(...next.map((s, k) => Math.abs(s / scales[k] - 1)));
    scales = next;
    if (!scales.every((s) => Number.isFinite(s) && s > 0)) return null;
    if (change < 1e-5) return scales;
  }
  return null;
}

/**
 * Corners (x, z) of the horizontal polygon the views allow: each confines the product
 * to a slab |p · right| ≤ half its box width. Enumerating where pairs of slab sides
 * cross and keeping the feasible points is a tiny linear programme. Empty when the
 * slabs leave a direction open (all views parallel).
 */
function footprint(views: readonly PreparedView[], bases: readonly Basis[], scales: readonly number[]): [number, number][] {
  const lines: { nx: number; nz: number; d: number }[] = [];
  bases.forEach((basis, k) => {
    const half = ((views[k].bbox.x1 - views[k].bbox.x0) / 2) * scales[k];
    lines.push({ nx: basis.right[0], nz: basis.right[2], d: half }, { nx: -basis.right[0], nz: -basis.right[2], d: half });
  });
  const feasible = (x: number, z: number) => lines.every((l) => l.nx * x + l.nz * z <= l.d * (1 + 1e-9) + 1e-12);
  const corners: [number, number][] = [];
  for (let i = 0; i < lines.length; i++) {
    for (let j = i + 1; j < lines.length; j++) {
      const a = lines[i];
      const b = lines[j];
      const det = a.nx * b.nz - a.nz * b.nx;
      if (Math.abs(det) < 1e-6) continue;
      const x = (a.d * b.nz - a.nz * b.d) / det;
      const z = (a.nx * b.d - a.d * b.nx) / det;
      if (feasible(x, z)) corners.push([x, z]);
    }
  }
  return corners;
}

/**
 * The turntable cameras as the pinhole cameras posed carving takes (OpenCV convention: x along `right`, y
 * down, looking at the product): centred on the product's axis at upCentre, far along `toCamera`.
 */
export function turntablePosedCameras(views: readonly PreparedView[], cams: readonly ViewCamera[]): PosedCamera[] {
  return cams.map((cam, k) => {
    const view = views[k];
    const distance = FAR_DISTANCE * Math.max(view.imageWidth, view.imageHeight) * cam.metresPerPixel;
    const focal = distance / cam.metresPerPixel;
    const rows = [cam.right, cam.up.map((v) => -v), cam.toCamera.map((v) => -v)];
    return {
      view: view.index,
      width: view.imageWidth,
      height: view.imageHeight,
      fx: focal,
      fy: focal,
      cx: cam.centreX,
      cy: cam.centreY,
      k1: 0,
      k2: 0,
      rotation: rows.flat() as PosedCamera['rotation'],
      // t = −R·C with the centre C = distance·toCamera + upCentre·up.
      translation: [0, cam.upCentre, distance],
    };
  });
}

/**
 * Box that certainly holds everything the silhouettes allow, within the heights
 * `clipY` when given; null when they leave a direction open.
 */
export function hullBounds(views: readonly PreparedView[], cams: readonly ViewCamera[], clipY?: [number, number]): Box3 | null {
  const polygon = footprint(views, cams, cams.map((c) => c.metresPerPixel));
  if (polygon.length === 0) return null;
  const xs = polygon.map(([x]) => x);
  const zs = polygon.map(([, z]) => z);
  const radius = Math.max(...polygon.map(([x, z]) => Math.hypot(x, z)));

  // Vertically: p · up = y cos φ - (horizontal part) sin φ must stay within the box's
  // vertical half extent around upCentre; the horizontal part is at most `radius`.
  let minY = clipY?.[0] ?? -Infinity;
  let maxY = clipY?.[1] ?? Infinity;
  cams.forEach((cam, k) => {
    const half = ((views[k].bbox.y1 - views[k].bbox.y0) / 2) * cam.metresPerPixel;
    const cosP = cam.up[1];
    const slack = radius * Math.hypot(cam.up[0], cam.up[2]);
    minY = Math.max(minY, (cam.upCentre - half - slack) / cosP);
    maxY = Math.min(maxY, (cam.upCentre + half + slack) / cosP);
  });
  if (!(maxY > minY)) return null;
  return { min: [Math.min(...xs), minY, Math.min(...zs)], max: [Math.max(...xs), maxY, Math.max(...zs)] };
}
