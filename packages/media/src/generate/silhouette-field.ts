import { MASK_THRESHOLD, type PreparedView } from './prepared-view.js';

/**
 * Signed distance to a view's silhouette outline on a grid of cells over the product
 * box (positive inside). Carving with distances rather than inside/outside bits lets
 * marching cubes place the surface between voxels, so a 128-voxel grid still gets
 * sizes right to a fraction of a voxel.
 */
export interface SilhouetteField {
  /** Signed distance in cells, at cell centres. */
  values: Float32Array;
  width: number;
  height: number;
  /** Mask pixel of the first cell's top-left corner. */
  originX: number;
  originY: number;
  /** Mask pixels per cell side. */
  cell: number;
}

/** The field's longest side in cells: plenty for a 128-voxel carve, and cheap. */
const MAX_FIELD_SIDE = 384;
const PAD_CELLS = 3;
const FAR = 1e20;

export function buildSilhouetteField(view: PreparedView): SilhouetteField {
  const { mask, maskWidth: mw, maskHeight: mh } = view;
  const bx0 = Math.floor(view.bbox.x0 * view.maskScaleX);
  const by0 = Math.floor(view.bbox.y0 * view.maskScaleY);
  const bx1 = Math.ceil(view.bbox.x1 * view.maskScaleX);
  const by1 = Math.ceil(view.bbox.y1 * view.maskScaleY);
  const cell = Math.max(1, Math.ceil(Math.max(bx1 - bx0, by1 - by0) / MAX_FIELD_SIDE));
  const originX = bx0 - PAD_CELLS * cell;
  const originY = by0 - PAD_CELLS * cell;
  const width = Math.ceil((bx1 - bx0) / cell) + 2 * PAD_CELLS;
  const height = Math.ceil((by1 - by0) / cell) + 2 * PAD_CELLS;

  // A cell is inside when most of its mask pixels are; pixels beyond the image are background.
  const inside = new Uint8Array(width * height);
  const half = (cell * cell) / 2;
  for (let cy = 0; cy < height; cy++) {
    for (let cx = 0; cx < width; cx++) {
      let count = 0;
      for (let y = originY + cy * cell, ye = y + cell; y < ye; y++) {
        if (y < 0 || y >= mh) continue;
        const row = y * mw;
        for (let x = originX + cx * cell, xe = x + cell; x < xe; x++) {
          if (x >= 0 && x < mw && mask[row + x] >= MASK_THRESHOLD) count++;
        }
      }
      inside[cy * width + cx] = count >= half ? 1 : 0;
    }
  }

  const toOutside = squaredDistanceTo(inside, width, height, 0);
  const toInside = squaredDistanceTo(inside, width, height, 1);
  const values = new Float32Array(width * height);
  for (let i = 0; i < values.length; i++) {
    // The outline runs half a cell beyond the last inside cell centre.
    values[i] = inside[i] ? Math.sqrt(toOutside[i]) - 0.5 : 0.5 - Math.sqrt(toInside[i]);
  }
  return { values, width, height, originX, originY, cell };
}

/** Squared distance from each cell to the nearest cell whose flag equals `target`. */
function squaredDistanceTo(flags: Uint8Array, width: number, height: number, target: number): Float64Array {
  const grid = new Float64Array(width * height);
  for (let i = 0; i < grid.length; i++) grid[i] = flags[i] === target ? 0 : FAR;
  const n = Math.max(width, height);
  const line = new Float64Array(n);
  const out = new Float64Array(n);
  const hullAt = new Int32Array(n);
  const bounds = new Float64Array(n + 1);
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) line[y] = grid[y * width + x];
    distance1d(line, height, out, hullAt, bounds);
    for (let y = 0; y < height; y++) grid[y * width + x] = out[y];
  }
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) line[x] = grid[row + x];
    distance1d(line, width, out, hullAt, bounds);
    for (let x = 0; x < width; x++) grid[row + x] = out[x];
  }
  return grid;
}

/**
 * Exact 1-D squared distance transform as the lower envelope of parabolas rooted at
 * each sample (Felzenszwalb and Huttenlocher); linear in n, and separable into 2-D.
 */
function distance1d(f: Float64Array, n: number, out: Float64Array, hullAt: Int32Array, bounds: Float64Array): void {
  let k = 0;
  hullAt[0] = 0;
  bounds[0] = -Infinity;
  bounds[1] = Infinity;
  for (let q = 1; q < n; q++) {
    // bounds[0] is -Infinity, so popping always stops at the first parabola.
    let s = intersection(f, q, hullAt[k]);
    while (s <= bounds[k]) s = intersection(f, q, hullAt[--k]);
    k++;
    hullAt[k] = q;
    bounds[k] = s;
    bounds[k + 1] = Infinity;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (bounds[k + 1] < q) k++;
    const v = hullAt[k];
    out[q] = (q - v) * (q - v) + f[v];
  }
}

/** Where the parabolas rooted at q and v cross. */
function intersection(f: Float64Array, q: number, v: number): number {
  return (f[q] + q * q - (f[v] + v * v)) / (2 * (q - v));
}

/**
 * Signed distance in cells at a continuous position in cell units (cell centres at
 * i + 0.5), bilinear inside the grid; beyond it the border value keeps falling with
 * the distance, so far-away points read as clearly outside.
 */
export function sampleField(field: SilhouetteField, cx: number, cy: number): number {
  const { values, width, height } = field;
  const fx = cx - 0.5;
  const fy = cy - 0.5;
  const x = fx < 0 ? 0 : fx > width - 1 ? width - 1 : fx;
  const y = fy < 0 ? 0 : fy > height - 1 ? height - 1 : fy;
  const beyond = fx === x && fy === y ? 0 : Math.hypot(fx - x, fy - y);
  const x0 = Math.min(width - 2, Math.floor(x));
  const y0 = Math.min(height - 2, Math.floor(y));
  const tx = x - x0;
  const ty = y - y0;
  const i = y0 * width + x0;
  const top = values[i] + (values[i + 1] - values[i]) * tx;
  const bottom = values[i + width] + (values[i + width + 1] - values[i + width]) * tx;
  return top + (bottom - top) * ty - beyond;
}
