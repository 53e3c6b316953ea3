import { projectPoint, type PosedCamera } from '../poses/camera.js';
import type { ScalarGrid } from './marching-cubes.js';
import { MASK_THRESHOLD, type PreparedView } from './prepared-view.js';
import { buildSilhouetteField, sampleField, type SilhouetteField } from './silhouette-field.js';

// The visual hull: a grid sample is inside when every view sees it inside the product's outline, through
// that view's own camera. Recovered cameras are perspective; a turntable's are far-away pinholes standing in
// for its orthographic views (turntable-camera.ts), so both carve here. The value is a signed distance (the
// smallest over views, in model units), so marching cubes places the surface between samples and sizes come
// out right to a fraction of a voxel.

export interface PosedCarveOptions {
  /** Samples along the longest side of the box. */
  resolution: number;
  /** Heights (model y) the product lies between: below the floor is never product, nor above the ceiling. */
  floorY?: number;
  ceilingY?: number;
  onSlab?: (done: number, total: number) => Promise<void> | void;
}

export interface Box3 {
  min: [number, number, number];
  max: [number, number, number];
}

/** Empty samples kept around the product so the surface closes inside the grid. */
const MARGIN = 2;

/** With at least this many views, one dissenting view does not carve. */
const TOLERANT_VIEWS = 8;
/** Mask holes smaller than this share of the silhouette are cut-out faults, not see-through gaps. */
const MAX_HOLE_SHARE = 0.01;


interface PosedSampler {
  cam: PosedCamera;
  field: SilhouetteField;
  /** Image pixels → field cells. */
  kx: number;
  ky: number;
  ox: number;
  oy: number;
  /** Image pixels per field cell, for turning distances back into pixels. */
  pixelsPerCell: number;
}

/** Fields depend only on the mask, so repeated carves of the same views reuse them. */
const fieldCache = new WeakMap<PreparedView, SilhouetteField>();

export function posedSamplers(views: readonly PreparedView[], cams: readonly PosedCamera[]): PosedSampler[] {
  return views.map((view, k) => {
    let field = fieldCache.get(view);
    if (!field) {
      field = buildSilhouetteField(view);
      fieldCache.set(view, field);
    }
    const kx = view.maskScaleX / field.cell;
    const ky = view.maskScaleY / field.cell;
    return {
      cam: cams[k],
      field,
      kx,
      ky,
      ox: field.originX / field.cell,
      oy: field.originY / field.cell,
      pixelsPerCell: 2 / (kx + ky),
    };
  });
}

/** Signed distance (model units, positive inside) of a point to one view's silhouette cone. */
export function coneDistance(s: PosedSampler, x: number, y: number, z: number): number {
  const [px, py, depth] = projectPoint(s.cam, x, y, z);
  // Behind the camera is outside; far enough that no other view matters.
  if (!(depth > 1e-6)) return -1e3;
  const cells = sampleField(s.field, px * s.kx - s.ox, py * s.ky - s.oy);
  return (cells * s.pixelsPerCell * depth) / s.cam.fx;
}

export async function carvePosedHull(
  samplers: readonly PosedSampler[],
  box: Box3,
  opts: PosedCarveOptions,
): Promise<ScalarGrid> {
  const { nx, ny, nz, origin, step } = gridLayout(box, opts.resolution);
  const values = new Float32Array(nx * ny * nz);
  const farOutside = -2 * step;
  const floor = opts.floorY ?? -Infinity;
  const ceiling = opts.ceilingY ?? Infinity;
  const tolerate = samplers.length >= TOLERANT_VIEWS;
  for (let z = 0; z < nz; z++) {
    const pz = origin[2] + z * step;
    for (let y = 0; y < ny; y++) {
      const py = origin[1] + y * step;
      const row = (z * ny + y) * nx;
      for (let x = 0; x < nx; x++) {
        const px = origin[0] + x * step;
        // The smallest distance, or with `tolerate` the second smallest: one view's faulty cut-out (a
        // shadow read as a hole) should not cut through what every other view sees.
        const clip = Math.min(py - floor, ceiling - py);
        let value = clip;
        let spare = Infinity;
        for (let k = 0; k < samplers.length && (tolerate ? spare : value) > farOutside; k++) {
          const d = coneDistance(samplers[k], px, py, pz);
          if (d < value) {
            spare = value;
            value = d;
          } else if (d < spare) spare = d;
        }
        values[row + x] = tolerate ? Math.min(spare, clip) : value;
      }
    }
    await opts.onSlab?.(z + 1, nz);
  }
  closeBorder(values, nx, ny, nz, step);
  return { values, nx, ny, nz, origin, step };
}

/** A grid over `box` with `resolution` samples along its longest side, plus an empty margin. */
export function gridLayout(box: Box3, resolution: number): Omit<ScalarGrid, 'values'> {
  const extent = [0, 1, 2].map((a) => box.max[a] - box.min[a]);
  const step = Math.max(...extent) / (resolution - 1 - 2 * MARGIN);
  const [nx, ny, nz] = extent.map((e) => Math.ceil(e / step) + 1 + 2 * MARGIN);
  const origin = [0, 1, 2].map((a) => (box.min[a] + box.max[a]) / 2 - (([nx, ny, nz][a] - 1) * step) / 2) as [number, number, number];
  return { nx, ny, nz, origin, step };
}

/** Forces the grid's outer shell outside, which guarantees a closed surface. */
function closeBorder(values: Float32Array, nx: number, ny: number, nz: number, step: number): void {
  for (let z = 0; z < nz; z++) {
    for (let y = 0; y < ny; y++) {
      const edgeRow = z === 0 || z === nz - 1 || y === 0 || y === ny - 1;
      const row = (z * ny + y) * nx;
      for (let x = 0; x < nx; x++) {
        if (edgeRow || x === 0 || x === nx - 1) values[row + x] = Math.min(values[row + x], -step);
      }
    }
  }
}

/** Box of the grid samples that are inside, or null when none is. */
export function insideBox(grid: ScalarGrid): Box3 | null {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const { nx, ny, nz, values, origin, step } = grid;
  for (let z = 0; z < nz; z++) {
    for (let y = 0; y < ny; y++) {
      for (let x = 0; x < nx; x++) {
        if (values[(z * ny + y) * nx + x] <= 0) continue;
        const p = [x, y, z];
        for (let a = 0; a < 3; a++) {
          const w = origin[a] + p[a] * step;
          if (w < min[a]) min[a] = w;
          if (w > max[a]) max[a] = w;
        }
      }
    }
  }
  if (!Number.isFinite(min[0])) return null;
  return { min: min as Box3['min'], max: max as Box3['max'] };
}

/**
 * The view with small enclosed holes of its mask filled: a dark groove or a shadow read as background
 * would otherwise carve a tunnel through the model.
 */
export function fillSmallHoles(view: PreparedView): PreparedView {
  const { maskWidth: w, maskHeight: h } = view;
  const mask = Uint8Array.from(view.mask);
  const label = new Int32Array(w * h).fill(-1);
  let product = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] >= MASK_THRESHOLD) product++;
  const stack: number[] = [];
  for (let start = 0; start < mask.length; start++) {
    if (mask[start] >= MASK_THRESHOLD || label[start] >= 0) continue;
    const region: number[] = [];
    let touchesBorder = false;
    label[start] = start;
    stack.push(start);
    while (stack.length) {
      const i = stack.pop()!;
      region.push(i);
      const x = i % w;
      const y = (i - x) / w;
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) touchesBorder = true;
      for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, y > 0 ? i - w : -1, y < h - 1 ? i + w : -1]) {
        if (j >= 0 && label[j] < 0 && mask[j] < MASK_THRESHOLD) {
          label[j] = start;
          stack.push(j);
        }
      }
    }
    if (!touchesBorder && region.length < MAX_HOLE_SHARE * product) for (const i of region) mask[i] = 255;
  }
  return { ...view, mask };
}
