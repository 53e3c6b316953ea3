import { Primitive, type Accessor, type mat4 } from '@gltf-transform/core';
import { intArray, quote, tupleArray, type UsdaText } from './usdz-usda.js';
import { primvarName } from './usdz-material.js';
import { atlasTexCoords, VERTEX_COLOR_PRIMVAR, type VertexColorAtlas } from './usdz-vertex-colors.js';

// One glTF primitive (as placed by one node) → one UsdGeomMesh with the node's
// world transform baked into the points. Baking keeps the USD flat and sidesteps
// differences in how viewers compose xformOps; instanced meshes cost file size only.

/** Triangle-list indices for any triangle topology; null for points and lines. */
export function triangleList(prim: Primitive): Uint32Array | null {
  const indices = prim.getIndices();
  const count = indices ? indices.getCount() : (prim.getAttribute('POSITION')?.getCount() ?? 0);
  const at = (i: number) => (indices ? indices.getScalar(i) : i);
  const mode = prim.getMode();
  if (mode === Primitive.Mode.TRIANGLES) {
    const n = count - (count % 3);
    const out = new Uint32Array(n);
    for (let i = 0; i < n; i++) out[i] = at(i);
    return out;
  }
  if (mode === Primitive.Mode.TRIANGLE_STRIP || mode === Primitive.Mode.TRIANGLE_FAN) {
    const tris = Math.max(0, count - 2);
    const out = new Uint32Array(tris * 3);
    for (let i = 0; i < tris; i++) {
      if (mode === Primitive.Mode.TRIANGLE_FAN) out.set([at(i + 1), at(i + 2), at(0)], i * 3);
      // Odd strip triangles swap two vertices to keep a consistent winding.
      else if (i % 2 === 0) out.set([at(i), at(i + 1), at(i + 2)], i * 3);
      else out.set([at(i), at(i + 2), at(i + 1)], i * 3);
    }
    return out;
  }
  return null;
}

export function readAll(accessor: Accessor, width: number): Float64Array {
  const count = accessor.getCount();
  const out = new Float64Array(count * width);
  const el: number[] = [];
  // getElement denormalises quantised (KHR_mesh_quantization) data for us.
  for (let i = 0; i < count; i++) {
    accessor.getElement(i, el);
    for (let k = 0; k < width; k++) out[i * width + k] = el[k] ?? 0;
  }
  return out;
}

/** Cofactor matrix of the upper 3×3 (rows), which maps normals up to a positive scale. */
function normalMatrix(m: mat4): { n: number[]; det: number } {
  const a = m[0], b = m[4], c = m[8];
  const d = m[1], e = m[5], f = m[9];
  const g = m[2], h = m[6], i = m[10];
  const n = [e * i - f * h, f * g - d * i, d * h - e * g, c * h - b * i, a * i - c * g, b * g - a * h, b * f - c * e, c * d - a * f, a * e - b * d];
  const det = a * n[0] + b * n[1] + c * n[2];
  return { n, det };
}

export interface MeshPrimSpec {
  name: string;
  prim: Primitive;
  world: mat4;
  materialPath: string;
  doubleSided: boolean;
  texCoordSets: Set<number>;
  /** COLOR_0 (linear RGB per vertex) and the atlas it was baked into, if it was; null when the primitive has none. */
  vertexColors: { colors: Float64Array; atlas: Pick<VertexColorAtlas, 'columns' | 'width' | 'height'> | null } | null;
}

/** Writes a `def Mesh`; returns the triangle count written (0 means nothing was emitted). */
export function writeMesh(out: UsdaText, spec: MeshPrimSpec): number {
  const { prim, world: m } = spec;
  const position = prim.getAttribute('POSITION');
  const tris = triangleList(prim);
  if (!position || !tris || tris.length === 0) return 0;

  const points = readAll(position, 3);
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < points.length; i += 3) {
    const x = points[i], y = points[i + 1], z = points[i + 2];
    const p = [m[0] * x + m[4] * y + m[8] * z + m[12], m[1] * x + m[5] * y + m[9] * z + m[13], m[2] * x + m[6] * y + m[10] * z + m[14]];
    for (let k = 0; k < 3; k++) {
      points[i + k] = p[k];
      if (p[k] < min[k]) min[k] = p[k];
      if (p[k] > max[k]) max[k] = p[k];
    }
  }

  const { n, det } = normalMatrix(m);
  // A mirroring transform flips winding; swap two corners so front faces stay front.
  if (det < 0) for (let t = 0; t < tris.length; t += 3) [tris[t + 1], tris[t + 2]] = [tris[t + 2], tris[t + 1]];

  out.open(`def Mesh ${quote(spec.name)}`, ['prepend apiSchemas = ["MaterialBindingAPI"]']);
  out.line(`uniform bool doubleSided = ${spec.doubleSided ? 1 : 0}`);
  out.line(`float3[] extent = ${tupleArray([...min, ...max], 3)}`);
  out.line(`int[] faceVertexCounts = [${'3, '.repeat(tris.length / 3 - 1)}3]`);
  out.line(`int[] faceVertexIndices = ${intArray(tris)}`);
  out.line(`rel material:binding = <${spec.materialPath}>`);

  const normal = prim.getAttribute('NORMAL');
  if (normal) {
    const normals = readAll(normal, 3);
    const sign = det < 0 ? -1 : 1;
    for (let i = 0; i < normals.length; i += 3) {
      const x = normals[i], y = normals[i + 1], z = normals[i + 2];
      const v = [n[0] * x + n[1] * y + n[2] * z, n[3] * x + n[4] * y + n[5] * z, n[6] * x + n[7] * y + n[8] * z];
      const len = Math.hypot(v[0], v[1], v[2]) || 1;
      for (let k = 0; k < 3; k++) normals[i + k] = (sign * v[k]) / len;
    }
    out.attr('normal3f[] normals', tupleArray(normals, 3), ['interpolation = "vertex"']);
  }
  out.line(`point3f[] points = ${tupleArray(points, 3)}`);

  for (const set of [...spec.texCoordSets].sort((a, b) => a - b)) {
    const uv = prim.getAttribute(`TEXCOORD_${set}`);
    if (!uv) continue;
    const st = readAll(uv, 2);
    // glTF puts the UV origin top-left, USD bottom-left.
    for (let i = 1; i < st.length; i += 2) st[i] = 1 - st[i];
    out.attr(`texCoord2f[] primvars:${primvarName(set)}`, tupleArray(st, 2), ['interpolation = "vertex"']);
  }
  if (spec.vertexColors) {
    // displayColor for USD tools that show it; Quick Look sees the colours through the baked atlas.
    out.attr('color3f[] primvars:displayColor', tupleArray(spec.vertexColors.colors, 3), ['interpolation = "vertex"']);
    if (spec.vertexColors.atlas) {
      const st = atlasTexCoords(spec.vertexColors.atlas, tris.length / 3, det < 0);
      out.attr(`texCoord2f[] primvars:${VERTEX_COLOR_PRIMVAR}`, tupleArray(st, 2), ['interpolation = "faceVarying"']);
    }
  }
  out.line('uniform token subdivisionScheme = "none"');
  out.close();
  return tris.length / 3;
}
