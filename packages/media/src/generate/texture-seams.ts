import { SOLID_COVERAGE } from './texture-bleed.js';
import { positionBox } from './position-box.js';

// Seam levelling (after Lempitsky and Ivanov, "Seamless mosaicing of image-based texture maps", 2007).
// Each triangle is coloured from one photo, and neighbouring triangles from different photos meet at a
// seam where white balance, exposure left over after the global gains, and shading that moves with the
// camera (a light beside the photographer, a sheen) differ: a visible edge. Every output vertex gets an
// additive colour offset, solved so that on both sides of every seam the two photos' colours plus their
// offsets agree, while inside a chart the offsets vary as little as possible from vertex to vertex and
// fade to nothing far from seams. The offsets are smooth, so they move only the low frequencies: the
// photos' detail is kept, only the step at the seam is spread out over the charts on either side.

/** One photo's crop in the atlas: its texels (RGB, exposure already balanced) and its product mask. */
export interface SeamTile {
  left: number;
  top: number;
  width: number;
  height: number;
  rgb: Uint8Array;
  coverage: Uint8Array;
}

export interface SeamMesh {
  positions: Float32Array;
  indices: Uint32Array;
  /** Atlas coordinates per vertex (0..1). */
  uvs: Float32Array;
  /** Per output vertex: the input vertex it was split from (the same point on every chart). */
  source: ArrayLike<number>;
  /** Per output vertex: the index in `tiles` of its chart's photo. */
  tile: ArrayLike<number>;
  /** Per output vertex: 1 where its photo really sees it (a triangle of it passed the occlusion test). */
  trusted: ArrayLike<number>;
}

/** Weight of agreement across a seam against smoothness inside a chart: large, so seams close almost fully. */
const SEAM_WEIGHT = 20;
/**
 * How far (as a share of the model's radius) an offset reaches into a chart before fading out: far enough
 * that the correction is a gentle gradient rather than a halo, short enough that a photo's colour is kept
 * wherever no seam is near.
 */
const REACH = 0.35;
/**
 * A seam whose colours differ by more than this (0–255 levels, per channel) is not exposure or shading but a
 * misplaced edge (a sliver coloured from the wrong surface, a highlight): levelled only this far, so it
 * cannot smear its error over the charts.
 */
const MAX_STEP = 48;
/**
 * Colour variance (levels², within a vertex's 3×3 window) at which a seam pair counts half. On an edge of the
 * paint a vertex's colour depends on exactly where it lands in each photo, and a pixel of misregistration
 * there reads as a large colour difference that is not exposure: such pairs are trusted less, and the
 * offsets there come from the flat stretches of the seam on either side.
 */
const NOISE_VARIANCE = 64;
/** Texels the offsets are grown beyond each chart's triangles, so texture filtering across an edge meets levelled colour. */
const GROW_PASSES = 3;
const MAX_ITERATIONS = 400;
const TOLERANCE = 1e-4;

/** Levels the colours across seams, changing the tiles' texels in place; returns the number of seam pairs used. */
export function levelSeams(mesh: SeamMesh, tiles: readonly SeamTile[], textureSize: number): number {
  const vertexCount = mesh.uvs.length / 2;
  const { colours, variance } = vertexColours(mesh, tiles, textureSize);

  // Seam pairs: output vertices split from the same input vertex, on different charts, both with a colour.
  const seams: number[] = [];
  const weights: number[] = [];
  const bySource = new Map<number, number[]>();
  for (let v = 0; v < vertexCount; v++) {
    const list = bySource.get(mesh.source[v]);
    if (list) list.push(v);
    else bySource.set(mesh.source[v], [v]);
  }
  for (const list of bySource.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        if (Number.isNaN(colours[list[i] * 3]) || Number.isNaN(colours[list[j] * 3])) continue;
        seams.push(list[i], list[j]);
        weights.push(SEAM_WEIGHT / (1 + (variance[list[i]] + variance[list[j]]) / NOISE_VARIANCE));
      }
    }
  }
  if (seams.length === 0) return 0;

  // The energy  Σ_seams w·(g_u − g_v + f_u − f_v)² + Σ_chart edges (g_a − g_b)² + Σ_v ε·area_v·g_v²  is
  // quadratic; its minimum solves A g = b with A symmetric positive definite (the ε term makes it so, and
  // keeps the average offset near zero: the balanced exposure stays). The mass term weighs by area so the
  // offsets fade over a surface distance, not a number of triangles, whatever the mesh's density.
  const area = vertexAreas(mesh.positions, mesh.indices, vertexCount);
  const radius = modelRadius(mesh.positions);
  const epsilon = 1 / (REACH * radius) ** 2;
  const diag = new Float64Array(vertexCount);
  const b = new Float64Array(vertexCount * 3);
  for (let v = 0; v < vertexCount; v++) diag[v] = epsilon * area[v];
  const { indices } = mesh;
  for (let i = 0; i < indices.length; i++) diag[indices[i]] += 2; // each triangle edge, at both ends
  for (let s = 0; s < seams.length; s += 2) {
    const [u, v, w] = [seams[s], seams[s + 1], weights[s / 2]];
    diag[u] += w;
    diag[v] += w;
    for (let c = 0; c < 3; c++) {
      const step = Math.max(-MAX_STEP, Math.min(MAX_STEP, colours[u * 3 + c] - colours[v * 3 + c]));
      b[u * 3 + c] -= w * step;
      b[v * 3 + c] += w * step;
    }
  }
  // The off-diagonal entries as one list of (p, q, weight): each triangle's three edges, then the seam pairs.
  const edgeCount = indices.length + seams.length / 2;
  const from = new Int32Array(edgeCount);
  const to = new Int32Array(edgeCount);
  const weight = new Float64Array(edgeCount);
  for (let t = 0; t < indices.length; t += 3) {
    for (let e = 0; e < 3; e++) {
      from[t + e] = indices[t + e];
      to[t + e] = indices[t + ((e + 1) % 3)];
      weight[t + e] = 1;
    }
  }
  for (let s = 0; s < seams.length; s += 2) {
    const e = indices.length + s / 2;
    [from[e], to[e], weight[e]] = [seams[s], seams[s + 1], weights[s / 2]];
  }
  const multiply = (x: Float64Array, out: Float64Array) => {
    for (let v = 0; v < vertexCount; v++) {
      const d = diag[v];
      out[v * 3] = d * x[v * 3];
      out[v * 3 + 1] = d * x[v * 3 + 1];
      out[v * 3 + 2] = d * x[v * 3 + 2];
    }
    for (let e = 0; e < edgeCount; e++) {
      const p = from[e] * 3;
      const q = to[e] * 3;
      const w = weight[e];
      out[p] -= w * x[q];
      out[p + 1] -= w * x[q + 1];
      out[p + 2] -= w * x[q + 2];
      out[q] -= w * x[p];
      out[q + 1] -= w * x[p + 1];
      out[q + 2] -= w * x[p + 2];
    }
  };
  const offsets = conjugateGradient(multiply, b, diag);
  applyOffsets(mesh, tiles, textureSize, offsets);
  return seams.length / 2;
}

/**
 * Each vertex's colour in its own chart's photo: the mean of the solid product texels in the 3×3 window at
 * its texture coordinate (a single texel is noise, JPEG blocks and grain); NaN where it has none (at the
 * cut-out's rim, where the photo mixes in backdrop) or where the photo does not really see it. With it, the window's variance (mean of the channels').
 */
function vertexColours(mesh: SeamMesh, tiles: readonly SeamTile[], size: number): { colours: Float64Array; variance: Float64Array } {
  const count = mesh.uvs.length / 2;
  const out = new Float64Array(count * 3).fill(NaN);
  const variance = new Float64Array(count);
  for (let v = 0; v < count; v++) {
    if (!mesh.trusted[v]) continue;
    const tile = tiles[mesh.tile[v]];
    const x = Math.floor(mesh.uvs[v * 2] * size - tile.left);
    const y = Math.floor(mesh.uvs[v * 2 + 1] * size - tile.top);
    let [r, g, bl, squares, n] = [0, 0, 0, 0, 0];
    for (let yy = Math.max(0, y - 1); yy <= Math.min(tile.height - 1, y + 1); yy++) {
      for (let xx = Math.max(0, x - 1); xx <= Math.min(tile.width - 1, x + 1); xx++) {
        const i = yy * tile.width + xx;
        if (tile.coverage[i] < SOLID_COVERAGE) continue;
        const [tr, tg, tb] = [tile.rgb[i * 3], tile.rgb[i * 3 + 1], tile.rgb[i * 3 + 2]];
        r += tr;
        g += tg;
        bl += tb;
        squares += tr * tr + tg * tg + tb * tb;
        n++;
      }
    }
    if (n === 0) continue;
    out.set([r / n, g / n, bl / n], v * 3);
    variance[v] = Math.max(0, (squares / n - ((r / n) ** 2 + (g / n) ** 2 + (bl / n) ** 2)) / 3);
  }
  return { colours: out, variance };
}

/** A third of the area of every triangle round each vertex. */
function vertexAreas(p: Float32Array, indices: Uint32Array, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let t = 0; t < indices.length; t += 3) {
    const [a, b, c] = [indices[t] * 3, indices[t + 1] * 3, indices[t + 2] * 3];
    const [ux, uy, uz] = [p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]];
    const [vx, vy, vz] = [p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2]];
    const third = Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx) / 6;
    out[indices[t]] += third;
    out[indices[t + 1]] += third;
    out[indices[t + 2]] += third;
  }
  return out;
}

/** Half the diagonal of the model's box. */
function modelRadius(p: Float32Array): number {
  return Math.hypot(...positionBox(p).size) / 2 || 1;
}

/** Jacobi-preconditioned conjugate gradients for three right-hand sides (RGB) that share one matrix. */
function conjugateGradient(multiply: (x: Float64Array, out: Float64Array) => void, b: Float64Array, diag: Float64Array): Float64Array {
  const n = b.length;
  const x = new Float64Array(n);
  const r = Float64Array.from(b);
  const z = new Float64Array(n);
  const p = new Float64Array(n);
  const q = new Float64Array(n);
  const inverse = new Float64Array(n);
  for (let i = 0; i < n; i++) inverse[i] = 1 / diag[Math.floor(i / 3)];
  const precondition = () => {
    for (let i = 0; i < n; i++) z[i] = r[i] * inverse[i];
  };
  const dot = (a: Float64Array, c: Float64Array) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += a[i] * c[i];
    return s;
  };
  const target = TOLERANCE * TOLERANCE * dot(b, b);
  precondition();
  p.set(z);
  let rz = dot(r, z);
  for (let iteration = 0; iteration < MAX_ITERATIONS && dot(r, r) > target; iteration++) {
    multiply(p, q);
    const alpha = rz / dot(p, q);
    for (let i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    precondition();
    const next = dot(r, z);
    const beta = next / rz;
    rz = next;
    for (let i = 0; i < n; i++) p[i] = z[i] + beta * p[i];
  }
  return x;
}

/**
 * Adds the offsets to the texels: each chart's triangles drawn into their tile with the offsets
 * interpolated across them, grown a few texels beyond, then added where the tile shows product.
 */
function applyOffsets(mesh: SeamMesh, tiles: readonly SeamTile[], size: number, offsets: Float64Array): void {
  const fields = tiles.map((tile) => ({ sum: new Float32Array(tile.width * tile.height * 3), known: new Uint8Array(tile.width * tile.height) }));
  const { indices, uvs } = mesh;
  for (let t = 0; t < indices.length; t += 3) {
    const [a, b, c] = [indices[t], indices[t + 1], indices[t + 2]];
    const k = mesh.tile[a];
    const tile = tiles[k];
    const field = fields[k];
    const [ax, ay] = [uvs[a * 2] * size - tile.left, uvs[a * 2 + 1] * size - tile.top];
    const [bx, by] = [uvs[b * 2] * size - tile.left, uvs[b * 2 + 1] * size - tile.top];
    const [cx, cy] = [uvs[c * 2] * size - tile.left, uvs[c * 2 + 1] * size - tile.top];
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx)));
    const x1 = Math.min(tile.width - 1, Math.ceil(Math.max(ax, bx, cx)));
    const y0 = Math.max(0, Math.floor(Math.min(ay, by, cy)));
    const y1 = Math.min(tile.height - 1, Math.ceil(Math.max(ay, by, cy)));
    for (let y = y0; y <= y1; y++) {
      const py = y + 0.5;
      for (let x = x0; x <= x1; x++) {
        const px = x + 0.5;
        let wa: number;
        let wb: number;
        if (Math.abs(area) < 1e-12) {
          // A triangle thinner than a texel still owns the texels it touches; it gets its mean offset.
          wa = wb = 1 / 3;
        } else {
          wa = ((bx - px) * (cy - py) - (by - py) * (cx - px)) / area;
          wb = ((cx - px) * (ay - py) - (cy - py) * (ax - px)) / area;
          // Texels whose centre is a little outside still take the triangle's offset: a thin triangle
          // covers no texel centre at all, and its texels would otherwise be left unlevelled.
          if (wa < -0.25 || wb < -0.25 || 1 - wa - wb < -0.25) continue;
        }
        const wc = 1 - wa - wb;
        const i = y * tile.width + x;
        // Centres inside the triangle win over texels only brushed by a neighbour.
        const inside = wa >= 0 && wb >= 0 && wc >= 0 ? 2 : 1;
        if (field.known[i] > inside) continue;
        field.known[i] = inside;
        field.sum[i * 3] = wa * offsets[a * 3] + wb * offsets[b * 3] + wc * offsets[c * 3];
        field.sum[i * 3 + 1] = wa * offsets[a * 3 + 1] + wb * offsets[b * 3 + 1] + wc * offsets[c * 3 + 1];
        field.sum[i * 3 + 2] = wa * offsets[a * 3 + 2] + wb * offsets[b * 3 + 2] + wc * offsets[c * 3 + 2];
      }
    }
  }
  tiles.forEach((tile, k) => {
    const { sum, known } = fields[k];
    growField(sum, known, tile.width, tile.height, GROW_PASSES);
    for (let i = 0; i < known.length; i++) {
      if (!known[i]) continue;
      for (let ch = 0; ch < 3; ch++) {
        const value = Math.round(tile.rgb[i * 3 + ch] + sum[i * 3 + ch]);
        tile.rgb[i * 3 + ch] = value < 0 ? 0 : value > 255 ? 255 : value;
      }
    }
  });
}

/** Spreads known offsets into unknown neighbours, one texel per pass (the mean of the known ones around). */
function growField(sum: Float32Array, known: Uint8Array, width: number, height: number, passes: number): void {
  const grown: number[] = [];
  for (let pass = 0; pass < passes; pass++) {
    grown.length = 0;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        if (known[i]) continue;
        let [r, g, b, n] = [0, 0, 0, 0];
        for (let yy = Math.max(0, y - 1); yy <= Math.min(height - 1, y + 1); yy++) {
          for (let xx = Math.max(0, x - 1); xx <= Math.min(width - 1, x + 1); xx++) {
            const j = yy * width + xx;
            if (!known[j]) continue;
            r += sum[j * 3];
            g += sum[j * 3 + 1];
            b += sum[j * 3 + 2];
            n++;
          }
        }
        if (n === 0) continue;
        sum[i * 3] = r / n;
        sum[i * 3 + 1] = g / n;
        sum[i * 3 + 2] = b / n;
        grown.push(i);
      }
    }
    if (grown.length === 0) return;
    for (const i of grown) known[i] = 1;
  }
}
