import { Document, Logger, NodeIO } from '@gltf-transform/core';
import sharp from 'sharp';

let model: Promise<Buffer> | null = null;

/**
 * What WarmRenderer.warm() draws: two small quads, one of a plain colour and one with a base-colour texture, so
 * the two shader programs most product models use (PBR with and without a colour map) are compiled before the
 * first real model arrives. Built once per process; a few hundred bytes.
 */
export function warmUpModel(): Promise<Buffer> {
  model ??= build();
  model.catch(() => (model = null));
  return model;
}

async function build(): Promise<Buffer> {
  const doc = new Document().setLogger(new Logger(Logger.Verbosity.ERROR));
  const buffer = doc.createBuffer();
  const scene = doc.createScene();
  doc.getRoot().setDefaultScene(scene);
  const texture = await sharp({ create: { width: 2, height: 2, channels: 4, background: { r: 200, g: 200, b: 200, alpha: 1 } } })
    .png()
    .toBuffer();
  const materials = [
    doc.createMaterial('plain').setBaseColorFactor([0.5, 0.5, 0.5, 1]),
    doc.createMaterial('textured').setBaseColorTexture(doc.createTexture().setImage(texture).setMimeType('image/png')),
  ];
  const accessor = (type: 'VEC2' | 'VEC3' | 'SCALAR', array: Float32Array | Uint16Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  materials.forEach((material, i) => {
    const x = i * 1.2;
    const prim = doc
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', new Float32Array([x, 0, 0, x + 1, 0, 0, x + 1, 1, 0, x, 1, 0])))
      .setAttribute('NORMAL', accessor('VEC3', new Float32Array([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1])))
      .setAttribute('TEXCOORD_0', accessor('VEC2', new Float32Array([0, 1, 1, 1, 1, 0, 0, 0])))
      .setIndices(accessor('SCALAR', new Uint16Array([0, 1, 2, 0, 2, 3])))
      .setMaterial(material);
    scene.addChild(doc.createNode().setMesh(doc.createMesh().addPrimitive(prim)));
  });
  return Buffer.from(await new NodeIO().writeBinary(doc));
}
