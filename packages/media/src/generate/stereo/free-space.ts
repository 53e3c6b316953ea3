import type { ScalarGrid } from '../marching-cubes.js';
import type { StereoView } from './stereo-views.js';

// The stereo depths fused into the hull's grid. Along each photo's ray a voxel in front of the measured
// surface is empty, one just behind it is inside, and one far behind is hidden from that photo, which then
// says nothing about it. Each voxel takes the mean of what the photos that see it say (a signed distance
// along their rays, cut off at a few voxels), and the hull's own value bounds it: stereo only removes. A
// voxel that fewer than two photos speak for keeps the hull, so the hull stays wherever stereo saw nothing.

/** Photos that must speak for a voxel before stereo changes it. */
const MIN_VOTES = 2;
/** The signed distance is cut off at this many voxels. */
const TRUNCATION_VOXELS = 3;
/** Stereo within this many voxels inside the hull's surface is noise on a surface the hull already has right. */
const HULL_AGREEMENT_VOXELS = 1.5;

export interface FusedGrid {
  grid: ScalarGrid;
  /** 1 where at least two photos measured a surface within the cut-off: the surface there is stereo's. */
  measured: Uint8Array;
}

export function fuseDepths(hull: ScalarGrid, views: readonly StereoView[], depths: readonly Float32Array[]): FusedGrid {
  const { nx, ny, nz, origin, step } = hull;
  const trunc = TRUNCATION_VOXELS * step;
  const agree = HULL_AGREEMENT_VOXELS * step;
  const values = Float32Array.from(hull.values);
  const measured = new Uint8Array(values.length);
  for (let z = 0; z < nz; z++) {
    const pz = origin[2] + z * step;
    for (let y = 0; y < ny; y++) {
      const py = origin[1] + y * step;
      for (let x = 0; x < nx; x++) {
        const i = (z * ny + y) * nx + x;
        if (values[i] <= -trunc) continue;
        const px = origin[0] + x * step;
        let sum = 0;
        let votes = 0;
        let near = 0;
        let front = 0;
        for (let k = 0; k < views.length; k++) {
          const v = views[k].image;
          const r = v.rotation;
          const zc = r[6] * px + r[7] * py + r[8] * pz + v.translation[2];
          if (!(zc > 0)) continue;
          const u = Math.floor((v.fx * (r[0] * px + r[1] * py + r[2] * pz + v.translation[0])) / zc + v.cx);
          const w = Math.floor((v.fy * (r[3] * px + r[4] * py + r[5] * pz + v.translation[1])) / zc + v.cy);
          if (u < 0 || w < 0 || u >= v.width || w >= v.height) continue;
          const d = depths[k][w * v.width + u];
          if (!(d > 0)) continue;
          const s = zc - d;
          if (s > trunc) continue;
          sum += s < -trunc ? -trunc : s;
          votes++;
          if (s >= -trunc) near++;
          if (s < 0) front++;
        }
        if (votes < MIN_VOTES) continue;
        const fused = sum / votes;
        // Outside only when at least two photos see it in front of their surface: one stray depth does not cut a hole.
        if (fused < values[i] - agree && (fused > 0 || front >= MIN_VOTES)) values[i] = fused;
        if (near >= MIN_VOTES) measured[i] = 1;
      }
    }
  }
  keepLargestPiece(values, nx, ny, nz, step);
  return { grid: { ...hull, values }, measured };
}

/** Empties every inside region but the largest (6-connected): crumbs stereo cut loose are not the product. */
function keepLargestPiece(values: Float32Array, nx: number, ny: number, nz: number, step: number): void {
  const label = new Int32Array(values.length).fill(-1);
  const sizes: number[] = [];
  const stack: number[] = [];
  for (let start = 0; start < values.length; start++) {
    if (values[start] <= 0 || label[start] >= 0) continue;
    const id = sizes.length;
    let size = 0;
    label[start] = id;
    stack.push(start);
    while (stack.length) {
      const i = stack.pop()!;
      size++;
      const x = i % nx;
      const y = Math.floor(i / nx) % ny;
      const z = Math.floor(i / (nx * ny));
      const next = [x > 0 ? i - 1 : -1, x < nx - 1 ? i + 1 : -1, y > 0 ? i - nx : -1, y < ny - 1 ? i + nx : -1, z > 0 ? i - nx * ny : -1, z < nz - 1 ? i + nx * ny : -1];
      for (const j of next) {
        if (j >= 0 && label[j] < 0 && values[j] > 0) {
          label[j] = id;
          stack.push(j);
        }
      }
    }
    sizes.push(size);
  }
  const largest = sizes.indexOf(Math.max(...sizes));
  for (let i = 0; i < values.length; i++) if (label[i] >= 0 && label[i] !== largest) values[i] = -step / 2;
}
