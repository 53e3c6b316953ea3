import type { PosedCamera, Vec3 } from '../../poses/camera.js';
import { marchingCubes, type ScalarGrid, type TriangleMesh } from '../marching-cubes.js';
import type { PreparedView } from '../prepared-view.js';
import { positionBox } from '../position-box.js';
import { consistentDepths } from './depth-consistency.js';
import { sweepAll, STEREO_THREADS } from './depth-workers.js';
import { fuseDepths, TRUNCATION_VOXELS } from './free-space.js';
import { STEREO_MAX_SIDE, stereoViews, sweepTasks } from './stereo-views.js';

// Multi-view stereo beyond the visual hull (DESIGN section 10): a depth map per photo by plane sweep against
// its neighbours, searched only inside the hull and the cut-out; the depths other photos confirm; fused into
// the hull's grid as free space and surface. The hull bounds the result and stays wherever stereo saw
// nothing (no texture, glare), so a product stereo cannot read comes out as its hull.

export interface StereoOptions {
  threads?: number;
  maxSide?: number;
  /** The table's height in the grid's frame, when known. */
  floorY?: number;
  /** Called after each photo's depth map. */
  onDepthMap?: (done: number, total: number) => void | Promise<void>;
}

export interface StereoSurface {
  /** The hull's grid with stereo's free space carved out. */
  grid: ScalarGrid;
  /** 1 at samples where the surface was measured by stereo. */
  measured: Uint8Array;
  /** Share of the photos' product pixels with a confirmed depth. */
  depthShare: number;
  seconds: { matching: number; fusing: number };
}

/** `cams[k]` is the camera of `views[k]` in the grid's frame. */
export async function carveWithStereo(
  hull: ScalarGrid,
  views: readonly PreparedView[],
  cams: readonly PosedCamera[],
  opts: StereoOptions = {},
): Promise<StereoSurface> {
  const started = Date.now();
  const hullMesh = marchingCubes(hull);
  const stereo = await stereoViews(views, cams, opts.maxSide ?? STEREO_MAX_SIDE);
  const tasks = sweepTasks(stereo, hullMesh, meshCentre(hullMesh));
  const maps = await sweepAll(
    stereo.map((v) => v.image),
    tasks,
    { threads: opts.threads ?? STEREO_THREADS, onDone: opts.onDepthMap },
  );
  const matched = Date.now();
  const hullNear = tasks.map((t) => t.near);
  const depths = consistentDepths(stereo, maps, { near: hullNear, deep: TRUNCATION_VOXELS * hull.step });
  let product = 0;
  let kept = 0;
  for (let k = 0; k < stereo.length; k++) {
    for (let i = 0; i < depths[k].length; i++) {
      if (!stereo[k].mask[i]) continue;
      product++;
      if (depths[k][i] > 0) kept++;
    }
  }
  const { grid, measured } = fuseDepths(hull, stereo, depths, { hullNear, floorY: opts.floorY });
  return { grid, measured, depthShare: product ? kept / product : 0, seconds: { matching: (matched - started) / 1000, fusing: (Date.now() - matched) / 1000 } };
}

function meshCentre(mesh: TriangleMesh): Vec3 {
  const { min, max } = positionBox(mesh.positions);
  return [0, 1, 2].map((a) => (min[a] + max[a]) / 2) as Vec3;
}

/**
 * Share of the mesh's area that stereo measured: triangles whose centre lies in a grid cell with a measured
 * sample at one of its corners.
 */
export function stereoCoverage(mesh: TriangleMesh, grid: Omit<ScalarGrid, 'values'>, measured: Uint8Array): number {
  const { positions: p, indices } = mesh;
  const { nx, ny, nz, origin, step } = grid;
  let total = 0;
  let seen = 0;
  for (let t = 0; t < indices.length; t += 3) {
    const [a, b, c] = [indices[t] * 3, indices[t + 1] * 3, indices[t + 2] * 3];
    const u = [p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]];
    const v = [p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2]];
    const area = Math.hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]);
    total += area;
    const cell = [0, 1, 2].map((k) => Math.floor(((p[a + k] + p[b + k] + p[c + k]) / 3 - origin[k]) / step));
    let hit = false;
    for (let corner = 0; corner < 8 && !hit; corner++) {
      const x = cell[0] + (corner & 1);
      const y = cell[1] + ((corner >> 1) & 1);
      const z = cell[2] + ((corner >> 2) & 1);
      if (x < 0 || y < 0 || z < 0 || x >= nx || y >= ny || z >= nz) continue;
      hit = measured[(z * ny + y) * nx + x] === 1;
    }
    if (hit) seen += area;
  }
  return total > 0 ? seen / total : 0;
}
