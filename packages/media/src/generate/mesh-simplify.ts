import { MeshoptSimplifier } from 'meshoptimizer';
import type { TriangleMesh } from './marching-cubes.js';
import { triangleNormal } from './triangle-normal.js';

/**
 * Error limits tried in turn (fractions of the mesh extent). The first keeps the
 * shape faithful; the later ones only kick in when a tight budget forces them.
 */
const ERROR_STEPS = [0.002, 0.01, 0.05, 1];

/** Reduces a welded mesh to at most `budget` triangles with meshoptimizer. */
export async function simplifyToBudget(mesh: TriangleMesh, budget: number): Promise<TriangleMesh> {
  const triangles = mesh.indices.length / 3;
  if (triangles <= budget) return compact(mesh.positions, mesh.indices);
  await MeshoptSimplifier.ready;
  const target = Math.max(1, Math.floor(budget)) * 3;
  let best = mesh.indices;
  for (const error of ERROR_STEPS) {
    // Aiming at the budget with a bounded error stops early on detailed shapes;
    // each step allows more error until the budget is met.
    const [indices] = MeshoptSimplifier.simplify(mesh.indices, mesh.positions, 3, target, error);
    best = indices;
    if (indices.length <= target) break;
  }
  if (best.length > target) {
    // Topology can block edge collapses (thin walls, tiny handles); the sloppy
    // simplifier ignores topology and always reaches the count.
    [best] = MeshoptSimplifier.simplifySloppy(mesh.indices, mesh.positions, 3, null, target, 1);
  }
  return compact(mesh.positions, best);
}

/**
 * Drops zero-area triangles (marching cubes makes some where the surface passes
 * through a grid sample) and unreferenced vertices, renumbering in first-use order.
 */
export function compact(positions: Float32Array, indices: Uint32Array): TriangleMesh {
  const remap = new Int32Array(positions.length / 3).fill(-1);
  const kept: number[] = [];
  let count = 0;
  for (let i = 0; i < indices.length; i += 3) {
    if (triangleArea2(positions, indices[i], indices[i + 1], indices[i + 2]) === 0) continue;
    for (let k = 0; k < 3; k++) {
      const v = indices[i + k];
      if (remap[v] < 0) remap[v] = count++;
      kept.push(remap[v]);
    }
  }
  const out = Uint32Array.from(kept);
  const moved = new Float32Array(count * 3);
  for (let v = 0; v < remap.length; v++) {
    const to = remap[v];
    if (to < 0) continue;
    moved[to * 3] = positions[v * 3];
    moved[to * 3 + 1] = positions[v * 3 + 1];
    moved[to * 3 + 2] = positions[v * 3 + 2];
  }
  return { positions: moved, indices: out };
}

/** Squared length of the (unnormalised) triangle normal: zero for degenerate triangles. */
function triangleArea2(p: Float32Array, a: number, b: number, c: number): number {
  const [nx, ny, nz] = triangleNormal(p, a, b, c);
  return nx * nx + ny * ny + nz * nz;
}

