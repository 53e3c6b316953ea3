import type { ScalarGrid } from '../marching-cubes.js';
import type { StereoView } from './stereo-views.js';
import { cameraCentre } from '../../poses/camera.js';
import { fillUnseen, gridUp, openCavities, SEEN_HULL, SEEN_MEASURED, tentHeight } from './unseen-space.js';

// The stereo depths fused into the hull's grid. Along each photo's ray a voxel in front of the measured
// surface is empty, one just behind it is inside, and one far behind is hidden from that photo, which then
// says nothing about it. Each voxel takes the mean of what the photos that see it say (a signed distance
// along their rays, cut off at a few voxels), and the hull's own value bounds it: stereo only removes. A
// voxel that fewer than two photos speak for keeps the hull, so the hull stays wherever stereo saw nothing.
// What no photo can see at all (under a chair's seat, deep in a mug) is then settled from what was seen
// around it (unseen-space.ts), not left as the hull's carving left it.

/** Photos that must speak for a voxel before stereo changes it. */
const MIN_VOTES = 2;
/**
 * Photos that must speak for a voxel deeper inside the hull than the cut-off: there stereo does not move the
 * hull's surface, it cuts new space out of what every outline left standing (depth-consistency.ts).
 */
const DEEP_VOTES = 3;
/** The signed distance is cut off at this many voxels; deeper inside the hull a depth is deep. */
export const TRUNCATION_VOXELS = 3;
/** Stereo within this many voxels inside the hull's surface is noise on a surface the hull already has right. */
const HULL_AGREEMENT_VOXELS = 1.5;
/** Pixels this close to a photo's outline show where its outline carved, not a surface it saw. */
const OUTLINE_PIXELS = 2;

export interface FusedGrid {
  grid: ScalarGrid;
  /** 1 where at least two photos measured a surface within the cut-off: the surface there is stereo's. */
  measured: Uint8Array;
}

export interface FuseOptions {
  /** Per view (stereo size), the hull's nearest depth: where a photo sees the hull's own surface. */
  hullNear: readonly Float32Array[];
  /** The table's height (model y, the generator's up): below it nothing was seen empty. */
  floorY?: number;
}

export function fuseDepths(hull: ScalarGrid, views: readonly StereoView[], depths: readonly Float32Array[], opts: FuseOptions): FusedGrid {
  const { nx, ny, nz, origin, step } = hull;
  const trunc = TRUNCATION_VOXELS * step;
  const agree = HULL_AGREEMENT_VOXELS * step;
  const values = Float32Array.from(hull.values);
  const measured = new Uint8Array(values.length);
  /** Where a photo sees the voxel on the surface in front of it: SEEN_MEASURED by stereo, else SEEN_HULL. */
  const seen = new Uint8Array(values.length);
  const onHull = 2 * step;
  const inner = views.map((v) => awayFromOutline(v.mask, v.image.width, v.image.height, OUTLINE_PIXELS));
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
        let hullSeen = false;
        for (let k = 0; k < views.length; k++) {
          const v = views[k].image;
          const r = v.rotation;
          const zc = r[6] * px + r[7] * py + r[8] * pz + v.translation[2];
          if (!(zc > 0)) continue;
          const u = Math.floor((v.fx * (r[0] * px + r[1] * py + r[2] * pz + v.translation[0])) / zc + v.cx);
          const w = Math.floor((v.fy * (r[3] * px + r[4] * py + r[5] * pz + v.translation[1])) / zc + v.cy);
          if (u < 0 || w < 0 || u >= v.width || w >= v.height) continue;
          const d = depths[k][w * v.width + u];
          if (!(d > 0)) {
            // At its own outline a photo only drew where the hull ends (the tent under a chair's seat is all
            // outline); inside the outline it looks at the hull's surface.
            if (inner[k][w * v.width + u] && zc <= opts.hullNear[k][w * v.width + u] + onHull) hullSeen = true;
            continue;
          }
          const s = zc - d;
          if (s > trunc) continue;
          sum += s < -trunc ? -trunc : s;
          votes++;
          if (s >= -trunc) near++;
          if (s < 0) front++;
        }
        if (hullSeen) seen[i] = SEEN_HULL;
        if (votes < MIN_VOTES) continue;
        const fused = sum / votes;
        const needed = hull.values[i] > trunc ? DEEP_VOTES : MIN_VOTES;
        // Outside only when enough photos see it in front of their surface: one stray depth does not cut a hole.
        if (fused < values[i] - agree && (fused > 0 ? votes : front) >= needed) values[i] = fused;
        if (near >= MIN_VOTES) measured[i] = 1;
        if (near >= MIN_VOTES) seen[i] = SEEN_MEASURED;
      }
    }
  }
  // A carve sealed inside was not seen empty from anywhere (a photo's ray would have had to come through
  // the product): it is filled before it can speak for the unseen space around it, and again at the end.
  fillSealedVoids(values, nx, ny, nz, step);
  const centre = [0, 1, 2].map((a) => origin[a] + (([nx, ny, nz][a] - 1) * step) / 2);
  const centres = views.map((v) => cameraCentre(v.camera));
  const up = gridUp(centres, centre);
  if (up) {
    const floor = up.axis === 1 && up.sign === 1 && opts.floorY !== undefined ? opts.floorY : -Infinity * up.sign;
    fillUnseen({ ...hull, values }, hull.values, seen, up, floor, tentHeight(centres, centre, up, hull));
    openCavities({ ...hull, values }, seen, up, TRUNCATION_VOXELS);
  }
  keepLargestPiece(values, nx, ny, nz, step);
  fillSealedVoids(values, nx, ny, nz, step);
  return { grid: { ...hull, values }, measured };
}

/** 1 where the cut-out says product and no background pixel lies within `radius` (a square). */
function awayFromOutline(mask: Uint8Array, w: number, h: number, radius: number): Uint8Array {
  // Rows then columns: a pixel is kept when its whole (2r+1)² square is product.
  const rows = new Uint8Array(mask.length);
  for (let y = 0; y < h; y++) {
    let run = 0;
    for (let x = 0; x < w; x++) {
      run = mask[y * w + x] ? run + 1 : 0;
      if (run >= 2 * radius + 1) rows[y * w + x - radius] = 1;
    }
  }
  const out = new Uint8Array(mask.length);
  for (let x = 0; x < w; x++) {
    let run = 0;
    for (let y = 0; y < h; y++) {
      run = rows[y * w + x] ? run + 1 : 0;
      if (run >= 2 * radius + 1) out[(y - radius) * w + x] = 1;
    }
  }
  return out;
}

/** Empties every inside region but the largest (6-connected): crumbs stereo cut loose are not the product. */
function keepLargestPiece(values: Float32Array, nx: number, ny: number, nz: number, step: number): void {
  const { label, sizes } = regions(values, nx, ny, nz, true);
  const largest = sizes.indexOf(Math.max(...sizes));
  for (let i = 0; i < values.length; i++) if (label[i] >= 0 && label[i] !== largest) values[i] = -step / 2;
}

/**
 * Fills every empty region sealed inside the product: no photo could have seen into it, so it is a stray
 * carve (a wrong depth) that would only add a hidden surface inside the model. The grid's corner is always
 * outside (carving closes the border), so the region holding it is the world around the product.
 */
function fillSealedVoids(values: Float32Array, nx: number, ny: number, nz: number, step: number): void {
  const { label } = regions(values, nx, ny, nz, false);
  for (let i = 0; i < values.length; i++) if (label[i] > 0) values[i] = step / 2;
}

/** 6-connected regions of the inside (`inside`) or of the empty samples: a label per sample (-1 for the other kind), and each region's size. */
function regions(values: Float32Array, nx: number, ny: number, nz: number, inside: boolean): { label: Int32Array; sizes: number[] } {
  const label = new Int32Array(values.length).fill(-1);
  const sizes: number[] = [];
  const stack: number[] = [];
  const member = (i: number) => (values[i] > 0) === inside;
  const plane = nx * ny;
  const stride = [1, nx, plane];
  const size3 = [nx, ny, nz];
  for (let start = 0; start < values.length; start++) {
    if (!member(start) || label[start] >= 0) continue;
    const id = sizes.length;
    let size = 0;
    label[start] = id;
    stack.push(start);
    while (stack.length) {
      const i = stack.pop()!;
      size++;
      const x = i % nx;
      const y = Math.floor(i / nx) % ny;
      const z = Math.floor(i / plane);
      for (let k = 0; k < 6; k++) {
        const a = k >> 1;
        const up = k & 1;
        const at = a === 0 ? x : a === 1 ? y : z;
        if (up ? at === size3[a] - 1 : at === 0) continue;
        const j = up ? i + stride[a] : i - stride[a];
        if (label[j] < 0 && member(j)) {
          label[j] = id;
          stack.push(j);
        }
      }
    }
    sizes.push(size);
  }
  return { label, sizes };
}
