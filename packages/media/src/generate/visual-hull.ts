import type { ScalarGrid } from './marching-cubes.js';
import type { PreparedView } from './prepared-view.js';
import { buildSilhouetteField, sampleField, type SilhouetteField } from './silhouette-field.js';
import type { Bounds3, ViewCamera } from './turntable-camera.js';

/** Samples along the longest side of the carving grid. */
export const DEFAULT_GRID_RESOLUTION = 128;
/** Empty samples kept around the product so the surface closes inside the grid. */
const MARGIN = 2;

/** Per view, world point → field cell coordinates, as two affine rows. */
interface ViewSampler {
  field: SilhouetteField;
  gx: [number, number, number, number];
  gy: [number, number, number, number];
  /** Metres per field cell. */
  metresPerCell: number;
}

/** Fields depend only on the mask, so repeated carves of the same views reuse them. */
const fieldCache = new WeakMap<PreparedView, SilhouetteField>();

function samplerFor(view: PreparedView, cam: ViewCamera): ViewSampler {
  let field = fieldCache.get(view);
  if (!field) {
    field = buildSilhouetteField(view);
    fieldCache.set(view, field);
  }
  const s = cam.metresPerPixel;
  const kx = view.maskScaleX / field.cell;
  const ky = view.maskScaleY / field.cell;
  // image x = centreX + (p·right)/s, image y = centreY - (p·up - upCentre)/s, then
  // image → mask pixels → cells.
  const r = cam.right;
  const u = cam.up;
  return {
    field,
    gx: [(kx * r[0]) / s, (kx * r[1]) / s, (kx * r[2]) / s, kx * cam.centreX - field.originX / field.cell],
    gy: [(-ky * u[0]) / s, (-ky * u[1]) / s, (-ky * u[2]) / s, ky * (cam.centreY + cam.upCentre / s) - field.originY / field.cell],
    metresPerCell: (s * 2) / (kx + ky),
  };
}

export interface CarveOptions {
  resolution?: number;
  /**
   * Heights (metres) the product is known to lie between: the turntable's floor and
   * its real height. Level views give both anyway; views from above cannot see the
   * underside or tell a flat lid from a low roof, and the hull would grow both.
   */
  clipY?: [number, number];
  /** Called between slabs of the grid so a long carve can yield to the event loop. */
  onSlab?: (done: number, total: number) => Promise<void> | void;
}

/**
 * Visual hull as a signed field: at each grid sample, the smallest signed distance
 * (metres) to any view's silhouette. A point is inside the hull exactly when every
 * view sees it inside the product's outline.
 */
export async function carveVisualHull(
  views: readonly PreparedView[],
  cams: readonly ViewCamera[],
  bounds: Bounds3,
  opts: CarveOptions = {},
): Promise<ScalarGrid> {
  const { nx, ny, nz, origin, step } = gridLayout(bounds, opts.resolution ?? DEFAULT_GRID_RESOLUTION);

  const samplers = views.map((view, k) => samplerFor(view, cams[k]));
  const values = new Float32Array(nx * ny * nz);
  // The field changes by at most one step between neighbours, so beyond a couple of
  // steps outside the exact value no longer matters and the other views can be skipped.
  const farOutside = -2 * step;
  const [floor, ceiling] = opts.clipY ?? [-Infinity, Infinity];

  for (let z = 0; z < nz; z++) {
    const pz = origin[2] + z * step;
    for (let y = 0; y < ny; y++) {
      const py = origin[1] + y * step;
      const row = (z * ny + y) * nx;
      for (let x = 0; x < nx; x++) {
        const px = origin[0] + x * step;
        let value = Math.min(py - floor, ceiling - py);
        for (let k = 0; k < samplers.length && value > farOutside; k++) {
          const sm = samplers[k];
          const gx = sm.gx[0] * px + sm.gx[1] * py + sm.gx[2] * pz + sm.gx[3];
          const gy = sm.gy[0] * px + sm.gy[1] * py + sm.gy[2] * pz + sm.gy[3];
          const d = sampleField(sm.field, gx, gy) * sm.metresPerCell;
          if (d < value) value = d;
        }
        values[row + x] = value;
      }
    }
    await opts.onSlab?.(z + 1, nz);
  }
  closeBorder(values, nx, ny, nz, step);
  return { values, nx, ny, nz, origin, step };
}

/** A grid over `bounds` with `resolution` samples along its longest side, plus an empty margin. */
export function gridLayout(bounds: Bounds3, resolution: number): Omit<ScalarGrid, 'values'> {
  const extent = [0, 1, 2].map((a) => bounds.max[a] - bounds.min[a]);
  const step = Math.max(...extent) / (resolution - 1 - 2 * MARGIN);
  const [nx, ny, nz] = extent.map((e) => Math.ceil(e / step) + 1 + 2 * MARGIN);
  const origin = [0, 1, 2].map((a) => (bounds.min[a] + bounds.max[a]) / 2 - (([nx, ny, nz][a] - 1) * step) / 2) as [number, number, number];
  return { nx, ny, nz, origin, step };
}

/** Forces the grid's outer shell outside, which guarantees a closed surface. */
export function closeBorder(values: Float32Array, nx: number, ny: number, nz: number, step: number): void {
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
