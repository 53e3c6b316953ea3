import type { ScalarGrid } from '../marching-cubes.js';

// Space no photo can see. Photos are taken from above the table, so what none of them sees hangs under
// something they do see: under a chair's seat lower than the lowest photo, under a table top, under a
// handle. The hull keeps that space solid only because no outline ever crossed it, and its surface there
// is where carving happened to stop (a tent under the seat). Along the vertical, such a voxel lies between
// a surface stereo measured above it and space seen empty below; it takes the side of the nearer one, so
// the underside comes halfway between. Space under a surface only the hull gave (a roof seen at a graze
// from a low ring), inside a solid product, or resting on the table keeps the hull: only the underside
// of a measured overhang is guessed.

/** `seen` marks inside voxels a photo saw on the surface in front of it: the hull's surface, or stereo's. */
export const SEEN_HULL = 1;
export const SEEN_MEASURED = 2;

/** Which way is up in the grid: the axis nearest the cameras' mean direction from the product, and its sign. */
export interface GridUp {
  axis: 0 | 1 | 2;
  sign: 1 | -1;
}

/** Up as the photos see it (they are taken from above), or null when they stand all round (no side is up). */
export function gridUp(cameraCentres: readonly number[][], centre: readonly number[]): GridUp | null {
  const mean = [0, 0, 0];
  for (const c of cameraCentres) {
    const d = [c[0] - centre[0], c[1] - centre[1], c[2] - centre[2]];
    const len = Math.hypot(d[0], d[1], d[2]) || 1;
    for (let a = 0; a < 3; a++) mean[a] += d[a] / len / cameraCentres.length;
  }
  const axis = [0, 1, 2].reduce((best, a) => (Math.abs(mean[a]) > Math.abs(mean[best]) ? a : best), 0) as GridUp['axis'];
  // Below a few degrees of mean elevation the ring says nothing about which side is up.
  if (Math.abs(mean[axis]) < MIN_MEAN_ELEVATION || Math.abs(mean[axis]) < 0.7 * Math.hypot(mean[0], mean[1], mean[2])) return null;
  return { axis, sign: mean[axis] > 0 ? 1 : -1 };
}

/** sin 3°: the mean camera direction must rise at least this much for "from above" to mean anything. */
const MIN_MEAN_ELEVATION = 0.05;

/**
 * Settles every inside voxel of `grid` not marked in `seen` that has a measured voxel above it and a
 * voxel seen empty below it (above the table, at `floor` along `up`: the table is not empty space), each
 * reached along the column before the other kind. Values only go down, never above the hull's.
 */
export function fillUnseen(grid: ScalarGrid, hull: Float32Array, seen: Uint8Array, up: GridUp, floor: number): void {
  const { values, nx, ny, nz, origin, step } = grid;
  const dims = [nx, ny, nz];
  const stride = [1, nx, nx * ny];
  const [a, b] = [0, 1, 2].filter((k) => k !== up.axis);
  const n = dims[up.axis];
  // Column positions from the bottom (k = 0) to the top; the table's position along them.
  const firstAboveFloor = up.sign === 1 ? Math.ceil((floor - origin[up.axis]) / step) : n - 1 - Math.floor((floor - origin[up.axis]) / step);
  const emptyBelow = new Float32Array(n);
  for (let j = 0; j < dims[b]; j++) {
    for (let i = 0; i < dims[a]; i++) {
      const base = i * stride[a] + j * stride[b];
      const at = (k: number) => base + (up.sign === 1 ? k : n - 1 - k) * stride[up.axis];
      // Upwards: how far down the last voxel seen empty is, with no seen surface in between.
      let empty = -1;
      for (let k = 0; k < n; k++) {
        const v = at(k);
        if (values[v] <= 0) empty = k >= firstAboveFloor ? k : -1;
        else if (seen[v]) empty = -1;
        emptyBelow[k] = empty >= 0 ? k - empty : Infinity;
      }
      // Downwards: how far up the last surface stereo measured is, with no empty space in between. Under a
      // surface only the hull's outline gave (a top seen at a graze) nothing is guessed.
      let inside = -1;
      for (let k = n - 1; k >= 0; k--) {
        const v = at(k);
        if (values[v] <= 0) inside = -1;
        else if (seen[v] === SEEN_MEASURED) inside = k;
        else if (seen[v] === SEEN_HULL) inside = -1;
        else if (inside >= 0 && Number.isFinite(emptyBelow[k])) {
          const settled = ((emptyBelow[k] - (inside - k)) * step) / 2;
          values[v] = Math.min(values[v], hull[v], settled);
        }
      }
    }
  }
}
