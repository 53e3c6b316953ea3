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

/**
 * The highest a hull's tent can stand under an overhang: the lowest photo's outline grazes the overhang's
 * edge and carves below a line rising at that photo's elevation, so at most half the footprint's smaller
 * side times its tangent under the middle. Above that the hull's underside is the product's (a temple's
 * roof over its columns, seen from a ring a few degrees up: the gaps show its underside edge-on). A photo
 * at or below the horizon leaves no tent.
 */
export function tentHeight(cameraCentres: readonly number[][], centre: readonly number[], up: GridUp, grid: ScalarGrid): number {
  let lowest = Infinity;
  for (const c of cameraCentres) {
    const d = [c[0] - centre[0], c[1] - centre[1], c[2] - centre[2]];
    lowest = Math.min(lowest, (up.sign * d[up.axis]) / (Math.hypot(d[0], d[1], d[2]) || 1));
  }
  if (!(lowest > 0)) return 0;
  const { values, nx, ny, nz, step } = grid;
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let z = 0; z < nz; z++) {
    for (let y = 0; y < ny; y++) {
      for (let x = 0; x < nx; x++) {
        if (!(values[(z * ny + y) * nx + x] > 0)) continue;
        const p = [x, y, z];
        for (let a = 0; a < 3; a++) {
          lo[a] = Math.min(lo[a], p[a]);
          hi[a] = Math.max(hi[a], p[a]);
        }
      }
    }
  }
  const side = Math.min(...[0, 1, 2].filter((a) => a !== up.axis).map((a) => (hi[a] - lo[a] + 1) * step));
  if (!Number.isFinite(side)) return 0;
  return (side / 2) * (lowest / Math.sqrt(1 - lowest * lowest));
}

/** sin 3°: the mean camera direction must rise at least this much for "from above" to mean anything. */
const MIN_MEAN_ELEVATION = 0.05;

/**
 * Settles every inside voxel of `grid` not marked in `seen` that has a measured voxel above it and a
 * voxel seen empty below it (above the table, at `floor` along `up`: the table is not empty space), each
 * reached along the column before the other kind. Values only go down, never above the hull's. The
 * underside moves up at most `maxTent` from where carving stopped (see `tentHeight`).
 */
export function fillUnseen(grid: ScalarGrid, hull: Float32Array, seen: Uint8Array, up: GridUp, floor: number, maxTent = Infinity): void {
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
          // Halfway, but never higher above the carved space than the lowest photos' tent can reach.
          const settled = Math.max(((emptyBelow[k] - (inside - k)) * step) / 2, emptyBelow[k] * step - maxTent);
          values[v] = Math.min(values[v], hull[v], settled);
        }
      }
    }
  }
}

/**
 * Opens the unseen bottom of a cavity the photos looked into: the deep inside of a tall cup or vase, below
 * the lowest line of sight over its rim. The hull keeps it solid only because no outline crossed it, and
 * stereo can only empty what a photo saw through, so what is left is a cone of nothing anyone saw. Such a
 * voxel lies, along the vertical, under space seen empty with nothing seen in between (a measured band
 * thinner than `strayVoxels` does not count), and that empty space is walled in within its horizontal slice
 * (it does not reach the open air) with a wall stereo measured met from it: a cavity, not the air over a top
 * seen at a graze or beside a product. Its walls are taken to go on straight down, and its floor to be
 * as thick as the walls around its opening measured (their median over the cavity): a cup's base is
 * unseen, and a wall of the same make is the guess the photos support, not the hull's cone. Values only go
 * down. Returns the number of columns opened.
 */
export function openCavities(grid: ScalarGrid, seen: Uint8Array, up: GridUp, strayVoxels: number): number {
  const { values, nx, ny, nz, step } = grid;
  const dims = [nx, ny, nz];
  const stride = [1, nx, nx * ny];
  const [a, b] = [0, 1, 2].filter((k) => k !== up.axis);
  const n = dims[up.axis];
  const unseenInside = (v: number) => values[v] > 0 && !seen[v];
  const enclosed = enclosedEmpty(values, dims, up.axis);
  /** From the empty voxel at `pos`, along horizontal axis `axis` one way: the wall's thickness if the first voxel met is one stereo measured, else -1. */
  const wallAlong = (pos: number[], axis: number, dir: 1 | -1): number => {
    const p = pos.slice();
    for (;;) {
      p[axis] += dir;
      if (p[axis] < 0 || p[axis] >= dims[axis]) return -1;
      const v = p[0] + p[1] * stride[1] + p[2] * stride[2];
      if (values[v] <= 0) continue;
      if (seen[v] !== SEEN_MEASURED) return -1;
      break;
    }
    let thickness = 0;
    for (; p[axis] >= 0 && p[axis] < dims[axis]; p[axis] += dir) {
      if (values[p[0] + p[1] * stride[1] + p[2] * stride[2]] <= 0) return thickness;
      thickness++;
    }
    return -1;
  };
  // Every run of unseen inside voxels right under an empty one; whether that empty voxel is walled in
  // (within its horizontal slice, the empty space around it does not reach the open air), and the thinnest
  // measured wall met from it along the horizontal axes.
  const segments: { base: number; top: number; bottom: number; wall: number; enclosed: boolean }[] = [];
  const member = new Int32Array(values.length).fill(-1);
  for (let j = 0; j < dims[b]; j++) {
    for (let i = 0; i < dims[a]; i++) {
      const base = i * stride[a] + j * stride[b];
      const k2v = (k: number) => base + (up.sign === 1 ? k : n - 1 - k) * stride[up.axis];
      for (let k = n - 2; k >= 0; k--) {
        if (!(values[k2v(k + 1)] <= 0)) continue;
        const empty = k + 1;
        // A measured band thinner than the signed distance's cut-off is a stray depth, not a lid: a surface
        // stereo measured leaves that many voxels behind it.
        const strayBelow = (from: number) => {
          let stray = 0;
          while (from - stray >= 0 && values[k2v(from - stray)] > 0 && seen[k2v(from - stray)]) stray++;
          return stray < strayVoxels && from - stray >= 0 && unseenInside(k2v(from - stray)) ? stray : -1;
        };
        const first = strayBelow(k);
        if (first < 0) continue;
        const top = k;
        k -= first;
        for (let next = strayBelow(k - 1); k > 0 && next >= 0; next = strayBelow(k - 1)) k -= next + 1;
        const pos = [0, 0, 0];
        pos[a] = i;
        pos[b] = j;
        pos[up.axis] = up.sign === 1 ? empty : n - 1 - empty;
        let wall = Infinity;
        for (const axis of [a, b]) {
          for (const dir of [1, -1] as const) {
            const t = wallAlong(pos, axis, dir);
            if (t > 0) wall = Math.min(wall, t);
          }
        }
        for (let m = k; m <= top; m++) member[k2v(m)] = segments.length;
        segments.push({ base, top, bottom: k, wall, enclosed: enclosed[k2v(empty)] === 1 });
      }
    }
  }
  // A cavity is decided as a whole (the runs joined through their voxels), so that no sheet is left
  // standing inside an open cup where a few columns fail the test: it opens when most of its columns are
  // walled in and some measured wall gave its thickness.
  const region = new Int32Array(segments.length).fill(-1);
  const stack: number[] = [];
  let opened = 0;
  for (let s = 0; s < segments.length; s++) {
    if (region[s] >= 0) continue;
    const list: number[] = [];
    region[s] = s;
    stack.push(s);
    while (stack.length) {
      const t = stack.pop()!;
      list.push(t);
      const { base, top, bottom } = segments[t];
      for (let k = bottom; k <= top; k++) {
        const v = base + (up.sign === 1 ? k : n - 1 - k) * stride[up.axis];
        for (const axis of [a, b]) {
          const at = Math.floor(v / stride[axis]) % dims[axis];
          for (const dir of [1, -1]) {
            if (at + dir < 0 || at + dir >= dims[axis]) continue;
            const u = member[v + dir * stride[axis]];
            if (u >= 0 && region[u] < 0) {
              region[u] = s;
              stack.push(u);
            }
          }
        }
      }
    }
    const walls = list.map((t) => segments[t].wall).filter((w) => Number.isFinite(w));
    if (list.filter((t) => segments[t].enclosed).length * 2 < list.length || !walls.length) continue;
    walls.sort((x, y) => x - y);
    const wall = walls[walls.length >> 1];
    for (const t of list) {
      const { base, top, bottom } = segments[t];
      for (let k = bottom; k <= top; k++) {
        const v = base + (up.sign === 1 ? k : n - 1 - k) * stride[up.axis];
        // The floor's top lies `wall` voxels above the surface under the run (half a voxel under its lowest voxel).
        values[v] = Math.min(values[v], (bottom - 0.5 + wall - k) * step);
      }
    }
    opened += list.length;
  }
  return opened;
}

/**
 * 1 at empty voxels walled in within their horizontal slice (the slice's empty region holding them does
 * not reach the grid's side, which is open air): the inside of a cup at that height, not the air beside a
 * product or over a top.
 */
function enclosedEmpty(values: Float32Array, dims: number[], upAxis: number): Uint8Array {
  const stride = [1, dims[0], dims[0] * dims[1]];
  const [a, b] = [0, 1, 2].filter((k) => k !== upAxis);
  const out = new Uint8Array(values.length);
  const done = new Uint8Array(values.length);
  const stack: number[] = [];
  for (let k = 0; k < dims[upAxis]; k++) {
    for (let j = 0; j < dims[b]; j++) {
      for (let i = 0; i < dims[a]; i++) {
        const start = i * stride[a] + j * stride[b] + k * stride[upAxis];
        if (done[start] || values[start] > 0) continue;
        const members: number[] = [];
        let open = false;
        done[start] = 1;
        stack.push(start);
        while (stack.length) {
          const v = stack.pop()!;
          members.push(v);
          for (const axis of [a, b]) {
            const at = Math.floor(v / stride[axis]) % dims[axis];
            for (const dir of [1, -1]) {
              if (at + dir < 0 || at + dir >= dims[axis]) {
                open = true;
                continue;
              }
              const u = v + dir * stride[axis];
              if (!done[u] && values[u] <= 0) {
                done[u] = 1;
                stack.push(u);
              }
            }
          }
        }
        if (!open) for (const v of members) out[v] = 1;
      }
    }
  }
  return out;
}
