import { EDGE_AXIS, EDGE_CORNER, TRIANGLES } from './marching-cubes-table.js';

/** A scalar field sampled on a regular grid; value > 0 is inside. */
export interface ScalarGrid {
  /** x fastest, then y, then z. */
  values: Float32Array;
  nx: number;
  ny: number;
  nz: number;
  /** World position of sample (0, 0, 0). */
  origin: [number, number, number];
  /** Spacing between samples, same on every axis. */
  step: number;
}

export interface TriangleMesh {
  /** xyz per vertex. */
  positions: Float32Array;
  /** Three vertex indices per triangle, counter-clockwise seen from outside. */
  indices: Uint32Array;
}

/**
 * Extracts the zero level set as a welded triangle mesh: vertices sit on grid edges
 * and are shared by every cube touching that edge, which the simplifier needs.
 */
export function marchingCubes(grid: ScalarGrid): TriangleMesh {
  const { values, nx, ny, nz, origin, step } = grid;
  if (values.length !== nx * ny * nz) throw new Error('grid size does not match its values');
  const strideY = nx;
  const strideZ = nx * ny;
  const axisStride = [1, strideY, strideZ];
  // Sample offset of each cube corner relative to the cube's first sample.
  const cornerOffset = Array.from({ length: 8 }, (_, c) => (c & 1) + ((c >> 1) & 1) * strideY + ((c >> 2) & 1) * strideZ);

  // One slot per (sample, axis): the vertex on the grid edge leaving that sample.
  const edgeVertex = new Int32Array(values.length * 3).fill(-1);
  const positions: number[] = [];
  const indices: number[] = [];

  const vertexOn = (sample: number, axis: number): number => {
    const slot = sample * 3 + axis;
    const known = edgeVertex[slot];
    if (known >= 0) return known;
    const a = values[sample];
    const b = values[sample + axisStride[axis]];
    // Exactly one end is inside, so a !== b and t lands in [0, 1].
    const t = a / (a - b);
    const x = sample % nx;
    const y = Math.floor(sample / strideY) % ny;
    const z = Math.floor(sample / strideZ);
    const id = positions.length / 3;
    positions.push(
      origin[0] + (x + (axis === 0 ? t : 0)) * step,
      origin[1] + (y + (axis === 1 ? t : 0)) * step,
      origin[2] + (z + (axis === 2 ? t : 0)) * step,
    );
    edgeVertex[slot] = id;
    return id;
  };

  for (let z = 0; z < nz - 1; z++) {
    for (let y = 0; y < ny - 1; y++) {
      let base = y * strideY + z * strideZ;
      for (let x = 0; x < nx - 1; x++, base++) {
        let config = 0;
        for (let c = 0; c < 8; c++) if (values[base + cornerOffset[c]] > 0) config |= 1 << c;
        if (config === 0 || config === 255) continue;
        const tri = TRIANGLES[config];
        for (let i = 0; i < tri.length; i++) {
          const e = tri[i];
          indices.push(vertexOn(base + cornerOffset[EDGE_CORNER[e]], EDGE_AXIS[e]));
        }
      }
    }
  }
  return { positions: Float32Array.from(positions), indices: Uint32Array.from(indices) };
}

/** Signed volume enclosed by a closed mesh; positive when its triangles face outward. */
export function signedVolume(mesh: TriangleMesh): number {
  const p = mesh.positions;
  const idx = mesh.indices;
  let sum = 0;
  for (let i = 0; i < idx.length; i += 3) {
    const a = idx[i] * 3;
    const b = idx[i + 1] * 3;
    const c = idx[i + 2] * 3;
    // Triple product a · (b × c): six times the tetrahedron with the origin.
    sum +=
      p[a] * (p[b + 1] * p[c + 2] - p[b + 2] * p[c + 1]) -
      p[a + 1] * (p[b] * p[c + 2] - p[b + 2] * p[c]) +
      p[a + 2] * (p[b] * p[c + 1] - p[b + 1] * p[c]);
  }
  return sum / 6;
}
