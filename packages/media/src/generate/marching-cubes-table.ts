// Marching-cubes triangle table, derived at load time instead of pasting the usual
// 256×16 literal. For every inside/outside pattern of a cube's corners we trace where
// the surface crosses each face, chain those segments into loops and fan them into
// triangles. Each face's segments depend only on that face's four corners, so the two
// cubes sharing a face always agree and the surface is watertight without the classic
// table's ambiguity patches.
//
// Corner c sits at (c & 1, (c >> 1) & 1, (c >> 2) & 1). Edge e joins EDGE_CORNER[e] to
// EDGE_CORNER[e] + (1 << EDGE_AXIS[e]).

const edgeCorner: number[] = [];
const edgeAxis: number[] = [];
const edgeIndex = new Map<string, number>();
for (let axis = 0; axis < 3; axis++) {
  for (let c = 0; c < 8; c++) {
    if (c & (1 << axis)) continue;
    edgeIndex.set(`${c},${c | (1 << axis)}`, edgeCorner.length);
    edgeCorner.push(c);
    edgeAxis.push(axis);
  }
}
export const EDGE_CORNER: readonly number[] = edgeCorner;
export const EDGE_AXIS: readonly number[] = edgeAxis;

function edgeBetween(a: number, b: number): number {
  const e = edgeIndex.get(a < b ? `${a},${b}` : `${b},${a}`);
  if (e === undefined) throw new Error(`corners ${a} and ${b} share no edge`);
  return e;
}

const coord = (c: number, axis: number) => (c >> axis) & 1;

/**
 * Each face's corners in counter-clockwise order seen from outside the cube, found by
 * angle around the face centre in a basis (e1, e2) with e1 × e2 = outward normal.
 */
function faceCycles(): number[][] {
  const faces: number[][] = [];
  for (let axis = 0; axis < 3; axis++) {
    for (const side of [0, 1]) {
      const a1 = (axis + 1) % 3;
      const a2 = (axis + 2) % 3;
      // e_{a+1} × e_{a+2} = e_a, so the +side uses (a1, a2) and the -side swaps them.
      const [u, v] = side === 1 ? [a1, a2] : [a2, a1];
      const corners = [0, 1, 2, 3, 4, 5, 6, 7].filter((c) => coord(c, axis) === side);
      corners.sort((p, q) => Math.atan2(coord(p, v) - 0.5, coord(p, u) - 0.5) - Math.atan2(coord(q, v) - 0.5, coord(q, u) - 0.5));
      faces.push(corners);
    }
  }
  return faces;
}

function trianglesFor(config: number, faces: number[][]): number[] {
  const inside = (c: number) => (config >> c) & 1;
  // next[e] = the crossing the surface loop visits after crossing e.
  const next = new Map<number, number>();
  for (const cycle of faces) {
    for (let i = 0; i < 4; i++) {
      // A run of inside corners starts here: walk to its end and link the crossing
      // where the walk enters the run to the one where it leaves. With diagonal
      // inside corners this keeps them apart, the same choice from both cubes.
      const prev = cycle[(i + 3) % 4];
      if (!inside(cycle[i]) || inside(prev)) continue;
      let j = i;
      while (inside(cycle[(j + 1) % 4])) j++;
      const entry = edgeBetween(prev, cycle[i]);
      const exit = edgeBetween(cycle[j % 4], cycle[(j + 1) % 4]);
      next.set(entry, exit);
    }
  }
  const triangles: number[] = [];
  const seen = new Set<number>();
  for (const start of next.keys()) {
    if (seen.has(start)) continue;
    const loop: number[] = [];
    for (let e = start; !seen.has(e); e = next.get(e)!) {
      seen.add(e);
      loop.push(e);
    }
    // The loop runs counter-clockwise around the outward normal (inside → outside),
    // so a fan from its first crossing keeps that winding.
    for (let k = 1; k + 1 < loop.length; k++) triangles.push(loop[0], loop[k], loop[k + 1]);
  }
  return triangles;
}

/** TRIANGLES[config] lists edge indices, three per triangle; bit c of config = corner c inside. */
export const TRIANGLES: readonly Uint8Array[] = (() => {
  const faces = faceCycles();
  const table: Uint8Array[] = [];
  for (let config = 0; config < 256; config++) table.push(Uint8Array.from(trianglesFor(config, faces)));
  return table;
})();
