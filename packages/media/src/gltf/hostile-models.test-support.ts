import { Document } from '@gltf-transform/core';
import sharp from 'sharp';
import { glbBytes } from './model-fixtures.test-support.js';

// Hostile models, as an outside audit built them: each small on the wire, each made to exhaust the stack,
// the memory or the time of whoever parses it. Glb/glTF bytes, with the reason each must fail with.

const json = (gltf: Record<string, unknown>) => Buffer.from(JSON.stringify({ asset: { version: '2.0' }, ...gltf }));

/** One triangle in a data URI buffer: enough for a mesh the validator accepts. */
function triangleGltf(extra: { nodes: Record<string, unknown>[]; scenes?: Record<string, unknown>[]; meshes?: Record<string, unknown>[] }) {
  const positions = Buffer.from(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]).buffer);
  return {
    buffers: [{ byteLength: positions.length, uri: `data:application/octet-stream;base64,${positions.toString('base64')}` }],
    bufferViews: [{ buffer: 0, byteLength: positions.length }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 0] }],
    meshes: extra.meshes ?? [{ primitives: [{ attributes: { POSITION: 0 } }] }],
    nodes: extra.nodes,
    scenes: extra.scenes ?? [{ nodes: [0] }],
    scene: 0,
  };
}

/** A parent → child chain `depth` nodes deep (the audit's 10,000 threw RangeError inside gltf-validator). */
export function deepChain(depth: number): Buffer {
  const nodes = Array.from({ length: depth }, (_, i) => (i + 1 < depth ? { children: [i + 1] } : { mesh: 0 }));
  return json(triangleGltf({ nodes }));
}

/** Many empty nodes under one root (the audit's 200,000 took 1.3 GB). */
export function manyNodes(count: number): Buffer {
  const nodes: Record<string, unknown>[] = [{ children: Array.from({ length: count - 1 }, (_, i) => i + 1) }, ...Array.from({ length: count - 1 }, () => ({}))];
  return json(triangleGltf({ nodes }));
}

/** Two nodes that are each other's child. */
export function nodeCycle(): Buffer {
  return json(triangleGltf({ nodes: [{ children: [1], mesh: 0 }, { children: [0] }] }));
}

/** Buffers declaring far more bytes than they hold. */
export function hugeDeclaredBuffer(bytes: number): Buffer {
  const gltf = triangleGltf({ nodes: [{ mesh: 0 }] });
  gltf.buffers.push({ byteLength: bytes, uri: 'data:application/octet-stream;base64,' });
  return json(gltf);
}

/** A Draco-compressed primitive whose accessors declare absurd counts (nothing is decoded to know it). */
export function dracoAbsurdCounts(): Buffer {
  const gltf = triangleGltf({ nodes: [{ mesh: 0 }] });
  return json({
    ...gltf,
    extensionsUsed: ['KHR_draco_mesh_compression'],
    extensionsRequired: ['KHR_draco_mesh_compression'],
    accessors: [
      { componentType: 5126, count: 1_000_000_000, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 1] },
      { componentType: 5125, count: 3_000_000_000, type: 'SCALAR' },
    ],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1, extensions: { KHR_draco_mesh_compression: { bufferView: 0, attributes: { POSITION: 0 } } } }] }],
  });
}

/** One real mesh of `triangles` triangles placed `instances` times (the audit's 1,000 made 2.9 GB and a 724 MB USDZ). */
export async function wideInstancing(instances: number, triangles = 2_000): Promise<Buffer> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const positions = new Float32Array(triangles * 9);
  for (let t = 0; t < triangles; t++) {
    const x = (t % 50) * 0.01;
    const y = Math.floor(t / 50) * 0.01;
    positions.set([x, y, 0, x + 0.01, y, 0, x, y + 0.01, 0], t * 9);
  }
  const mesh = doc.createMesh().addPrimitive(doc.createPrimitive().setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(positions).setBuffer(buffer)));
  const root = doc.createNode('root');
  for (let i = 0; i < instances; i++) root.addChild(doc.createNode(`copy-${i}`).setMesh(mesh).setTranslation([i * 0.001, 0, 0]));
  doc.createScene().addChild(root);
  return glbBytes(doc);
}

/** Textures over the caps: one image too wide, or many images together over the total. */
export async function hugeTextures(kind: 'side' | 'total'): Promise<Buffer> {
  const png =
    kind === 'side'
      ? await sharp({ create: { width: 16_400, height: 8, channels: 3, background: '#808080' } }).png().toBuffer()
      : await sharp({ create: { width: 4096, height: 4096, channels: 3, background: '#808080' } }).png({ compressionLevel: 9 }).toBuffer();
  const copies = kind === 'side' ? 1 : 17; // 17 × 4096² ≈ 285 MP > 256 MP
  const gltf = triangleGltf({ nodes: [{ mesh: 0 }] });
  const uri = `data:image/png;base64,${png.toString('base64')}`;
  return json({ ...gltf, images: Array.from({ length: copies }, () => ({ uri })) });
}

/** Every hostile model, named, with the reason it must fail with. */
export async function hostileModels(): Promise<{ name: string; file: string; bytes: Buffer; reason: string; cap?: string }[]> {
  return [
    { name: 'deep chain of 10,000 nodes', file: 'deep.gltf', bytes: deepChain(10_000), reason: 'model_too_complex', cap: 'maxDepth' },
    { name: '1,500 instances of a 2,000-triangle mesh', file: 'wide.glb', bytes: await wideInstancing(1_500), reason: 'model_too_complex', cap: 'maxTriangles' },
    { name: '200,000 empty nodes', file: 'many.gltf', bytes: manyNodes(200_000), reason: 'model_too_complex', cap: 'maxNodes' },
    { name: 'a 4 GB declared buffer', file: 'buffer.gltf', bytes: hugeDeclaredBuffer(4 * 1024 ** 3), reason: 'model_too_complex', cap: 'maxBufferBytes' },
    { name: 'a texture 16,400 px wide', file: 'side.gltf', bytes: await hugeTextures('side'), reason: 'model_too_complex', cap: 'maxTextureSide' },
    { name: '285 MP of textures', file: 'total.gltf', bytes: await hugeTextures('total'), reason: 'model_too_complex', cap: 'maxTexturePixels' },
    { name: 'a node cycle', file: 'cycle.gltf', bytes: nodeCycle(), reason: 'invalid_gltf' },
    { name: 'Draco with absurd counts', file: 'draco.gltf', bytes: dracoAbsurdCounts(), reason: 'model_too_complex', cap: 'maxTriangles' },
  ];
}
