import { Document, Logger, NodeIO, type Material } from '@gltf-transform/core';

export interface MeshPart {
  name: string;
  positions: Float32Array;
  /** Unit length, one per vertex. */
  normals: Float32Array;
  /** Needed only with a texture. */
  uvs?: Float32Array;
  indices: Uint32Array;
  material: PartMaterial;
}

export interface PartMaterial {
  name: string;
  texture?: { image: Uint8Array; mimeType: 'image/jpeg' | 'image/png' };
  /** MASK cuts the photo's background out of a relief card. */
  alphaMode?: 'OPAQUE' | 'MASK';
  /** Linear RGBA; multiplies the texture when there is one. */
  baseColor?: [number, number, number, number];
}

/** Product photos are matte more often than not; nothing we carve knows better. */
const ROUGHNESS = 0.8;

/** One mesh node at the origin, one primitive per part; parts may share a material by name. */
export async function writePartsGlb(name: string, parts: readonly MeshPart[]): Promise<Buffer> {
  const doc = new Document();
  doc.setLogger(new Logger(Logger.Verbosity.WARN));
  const buffer = doc.createBuffer();
  const mesh = doc.createMesh(name);
  const materials = new Map<string, Material>();
  for (const part of parts) {
    let material = materials.get(part.material.name);
    if (!material) {
      material = createMaterial(doc, part.material);
      materials.set(part.material.name, material);
    }
    const vertexCount = part.positions.length / 3;
    const prim = doc
      .createPrimitive()
      .setMaterial(material)
      .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(part.positions).setBuffer(buffer))
      .setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(part.normals).setBuffer(buffer))
      // 16-bit indices whenever they fit: half the index bytes, and every viewer reads them.
      .setIndices(
        doc
          .createAccessor()
          .setType('SCALAR')
          .setArray(vertexCount <= 65535 ? Uint16Array.from(part.indices) : part.indices)
          .setBuffer(buffer),
      );
    if (part.uvs) prim.setAttribute('TEXCOORD_0', doc.createAccessor().setType('VEC2').setArray(part.uvs).setBuffer(buffer));
    mesh.addPrimitive(prim);
  }
  const node = doc.createNode(name).setMesh(mesh);
  doc.getRoot().setDefaultScene(doc.createScene(name).addChild(node));
  doc.getRoot().getAsset().generator = 'Plinth built-in generator';
  const bytes = await new NodeIO().writeBinary(doc);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function createMaterial(doc: Document, spec: PartMaterial): Material {
  const material = doc
    .createMaterial(spec.name)
    .setMetallicFactor(0)
    .setRoughnessFactor(ROUGHNESS)
    .setBaseColorFactor(spec.baseColor ?? [1, 1, 1, 1]);
  if (spec.texture) {
    const texture = doc
      .createTexture(spec.name)
      .setImage(spec.texture.image)
      .setMimeType(spec.texture.mimeType);
    material.setBaseColorTexture(texture);
  }
  if (spec.alphaMode === 'MASK') material.setAlphaMode('MASK').setAlphaCutoff(0.5);
  return material;
}
