// The models the import and poster benches use: a 12-triangle box (the small import) and a textured sphere of a
// chosen triangle count and texture size (a typical product: ≤ 150,000 triangles, 2048 px textures).
import { Accessor, Document, Logger } from '@gltf-transform/core';
import { varietyIO } from '../models-lib/variety.mjs';
import sharp from 'sharp';

const quiet = new Logger(Logger.Verbosity.ERROR);

function newDocument(name) {
  const doc = new Document().setLogger(quiet);
  doc.createBuffer();
  const scene = doc.createScene(name);
  doc.getRoot().setDefaultScene(scene);
  return { doc, scene };
}

function mesh(doc, scene, { positions, normals, uvs, indices }, material) {
  const buffer = doc.getRoot().listBuffers()[0];
  const accessor = (type, array) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor(Accessor.Type.VEC3, new Float32Array(positions)))
    .setAttribute('NORMAL', accessor(Accessor.Type.VEC3, new Float32Array(normals)))
    .setAttribute('TEXCOORD_0', accessor(Accessor.Type.VEC2, new Float32Array(uvs)))
    .setIndices(accessor(Accessor.Type.SCALAR, positions.length / 3 > 65535 ? new Uint32Array(indices) : new Uint16Array(indices)))
    .setMaterial(material);
  scene.addChild(doc.createNode().setMesh(doc.createMesh().addPrimitive(prim)));
}

/** A 0.3 m box: 24 vertices, 12 triangles, one plain material. `tint` (0..1) varies its colour between imports. */
export async function boxModel(tint = 0.5) {
  const { doc, scene } = newDocument('box');
  const positions = [];
  const normals = [];
  const uvs = [];
  const indices = [];
  for (const [axis, sign] of [[0, 1], [0, -1], [1, 1], [1, -1], [2, 1], [2, -1]]) {
    const u = (axis + 1) % 3;
    const v = (axis + 2) % 3;
    const base = positions.length / 3;
    for (const [a, b] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
      const p = [0, 0, 0];
      p[axis] = sign * 0.15;
      p[u] = a * 0.15;
      p[v] = b * 0.15;
      positions.push(p[0], p[1] + 0.15, p[2]);
      const n = [0, 0, 0];
      n[axis] = sign;
      normals.push(...n);
      uvs.push((a + 1) / 2, (b + 1) / 2);
    }
    indices.push(...(sign > 0 ? [0, 1, 2, 0, 2, 3] : [0, 2, 1, 0, 3, 2]).map((k) => base + k));
  }
  const material = doc.createMaterial('paint').setBaseColorFactor([0.2 + 0.6 * tint, 0.4, 0.8 - 0.6 * tint, 1]).setRoughnessFactor(0.6).setMetallicFactor(0);
  mesh(doc, scene, { positions, normals, uvs, indices }, material);
  return { name: 'box', triangles: 12, glb: Buffer.from(await (await varietyIO()).writeBinary(doc)) };
}

/** A checker-and-noise base colour of `size` px, so the texture is not trivially compressible. */
async function texture(size, seed) {
  const raw = Buffer.alloc(size * size * 3);
  let s = seed >>> 0 || 1;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      s = (s * 1664525 + 1013904223) >>> 0;
      const checker = ((x >> 6) + (y >> 6)) % 2 ? 200 : 90;
      const i = (y * size + x) * 3;
      raw[i] = checker;
      raw[i + 1] = (checker * 0.7 + (s & 31)) | 0;
      raw[i + 2] = 60 + (s >>> 27);
    }
  }
  return sharp(raw, { raw: { width: size, height: size, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

/** A UV sphere of about `triangles` triangles, 0.4 m across, with a `textureSize` px base colour texture. */
export async function sphereModel({ triangles = 150_000, textureSize = 2048, seed = 1 } = {}) {
  const { doc, scene } = newDocument('sphere');
  // rings × segments quads, two triangles each, with segments = 2 × rings.
  const rings = Math.max(4, Math.round(Math.sqrt(triangles / 4)));
  const segments = rings * 2;
  const positions = [];
  const normals = [];
  const uvs = [];
  const indices = [];
  for (let r = 0; r <= rings; r++) {
    const phi = (Math.PI * r) / rings;
    for (let s = 0; s <= segments; s++) {
      const theta = (2 * Math.PI * s) / segments;
      const n = [Math.sin(phi) * Math.cos(theta), Math.cos(phi), Math.sin(phi) * Math.sin(theta)];
      normals.push(...n);
      positions.push(n[0] * 0.2, n[1] * 0.2 + 0.2, n[2] * 0.2);
      uvs.push(s / segments, r / rings);
    }
  }
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * (segments + 1) + s;
      const b = a + segments + 1;
      indices.push(a, a + 1, b, b, a + 1, b + 1);
    }
  }
  const image = await texture(textureSize, seed);
  const tex = doc.createTexture('albedo').setImage(new Uint8Array(image)).setMimeType('image/jpeg');
  const material = doc.createMaterial('print').setBaseColorTexture(tex).setRoughnessFactor(0.5).setMetallicFactor(0);
  mesh(doc, scene, { positions, normals, uvs, indices }, material);
  return { name: `sphere-${Math.round(indices.length / 3 / 1000)}k-${textureSize}px`, triangles: indices.length / 3, glb: Buffer.from(await (await varietyIO()).writeBinary(doc)) };
}
