import { Document, Format, NodeIO, type Material, type Node, type Texture } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import sharp from 'sharp';
import type { FetchBytes } from './model-resources.js';

// Models for the model/USDZ tests, built in memory with gltf-transform and sharp.

export const testIO = () => new NodeIO().registerExtensions(ALL_EXTENSIONS);

type V3 = [number, number, number];

const cross = (a: V3, b: V3): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

/** 24 vertices (flat-shaded faces), 12 CCW-outward triangles, centred on the origin. */
export function boxGeometry([w, h, d]: V3) {
  const half: V3 = [w / 2, h / 2, d / 2];
  const faces: [V3, V3][] = [
    [[1, 0, 0], [0, 0, -1]],
    [[-1, 0, 0], [0, 0, 1]],
    [[0, 1, 0], [1, 0, 0]],
    [[0, -1, 0], [1, 0, 0]],
    [[0, 0, 1], [1, 0, 0]],
    [[0, 0, -1], [-1, 0, 0]],
  ];
  const positions: number[] = [];
  const normals: number[] = [];
  const uvs: number[] = [];
  const indices: number[] = [];
  for (const [n, u] of faces) {
    const v = cross(n, u); // u × v = n, so (−u−v, +u−v, +u+v, −u+v) winds CCW seen from outside
    const base = positions.length / 3;
    for (const [su, sv] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
      for (let k = 0; k < 3; k++) positions.push((n[k] + su * u[k] + sv * v[k]) * half[k]);
      normals.push(...n);
      uvs.push((su + 1) / 2, (1 - sv) / 2);
    }
    indices.push(base, base + 1, base + 2, base, base + 2, base + 3);
  }
  return {
    positions: new Float32Array(positions),
    normals: new Float32Array(normals),
    uvs: new Float32Array(uvs),
    indices: new Uint16Array(indices),
  };
}

/** A PNG that is not a single colour (prune would turn a flat texture into a factor). */
export async function gradientPng(size: number): Promise<Uint8Array> {
  const small = 64;
  const raw = Buffer.alloc(small * small * 3);
  for (let y = 0; y < small; y++) {
    for (let x = 0; x < small; x++) raw.set([x * 4, y * 4, 128], (y * small + x) * 3);
  }
  const png = await sharp(raw, { raw: { width: small, height: small, channels: 3 } })
    .resize(size, size, { kernel: 'nearest' })
    .png({ compressionLevel: 9 })
    .toBuffer();
  return new Uint8Array(png);
}

export interface BoxOptions {
  /** Size of the mesh itself, before the node's scale. */
  meshSize: V3;
  nodeScale?: V3;
  nodeTranslation?: V3;
  texture?: Uint8Array;
  /** Put indices in a second buffer, as partitioned .gltf exports do. */
  splitBuffers?: boolean;
}

export function boxDocument(opts: BoxOptions): { doc: Document; node: Node; material: Material; texture: Texture | null } {
  const doc = new Document();
  const geo = boxGeometry(opts.meshSize);
  const main = doc.createBuffer('geometry').setURI('box.bin');
  const second = opts.splitBuffers ? doc.createBuffer('indices').setURI('box-indices.bin') : main;
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor('position', main).setType('VEC3').setArray(geo.positions))
    .setAttribute('NORMAL', doc.createAccessor('normal', main).setType('VEC3').setArray(geo.normals))
    .setAttribute('TEXCOORD_0', doc.createAccessor('uv', main).setType('VEC2').setArray(geo.uvs))
    .setIndices(doc.createAccessor('indices', second).setType('SCALAR').setArray(geo.indices));
  const material = doc.createMaterial('Painted Wood').setRoughnessFactor(0.6).setMetallicFactor(0);
  let texture: Texture | null = null;
  if (opts.texture) {
    texture = doc.createTexture('albedo').setImage(opts.texture).setMimeType('image/png').setURI('textures/albedo.png');
    material.setBaseColorTexture(texture);
  }
  prim.setMaterial(material);
  const node = doc.createNode('Box').setMesh(doc.createMesh('box').addPrimitive(prim));
  if (opts.nodeScale) node.setScale(opts.nodeScale);
  if (opts.nodeTranslation) node.setTranslation(opts.nodeTranslation);
  doc.createScene('scene').addChild(node);
  doc.getRoot().setDefaultScene(doc.getRoot().listScenes()[0]);
  return { doc, node, material, texture };
}

/** The document as a .gltf JSON file plus its side files, keyed by relative URI. */
export async function gltfFiles(doc: Document): Promise<{ json: Buffer; files: Record<string, Uint8Array> }> {
  const { json, resources } = await testIO().writeJSON(doc, { format: Format.GLTF });
  return { json: Buffer.from(JSON.stringify(json)), files: resources };
}

export async function glbBytes(doc: Document): Promise<Buffer> {
  return Buffer.from(await testIO().writeBinary(doc));
}

/** A stand-in for the guarded fetcher: serves a fixed URL → bytes table and records every call. */
export function fakeFetcher(table: Record<string, Uint8Array>, refuse: (url: string) => string | null = () => null) {
  const calls: string[] = [];
  const fetchBytes: FetchBytes = async (url) => {
    calls.push(url);
    const why = refuse(url);
    if (why) throw new Error(why);
    const hit = table[url];
    if (!hit) throw new Error(`404 Not Found: ${url}`);
    return Buffer.from(hit);
  };
  return { fetchBytes, calls };
}
