import type { Document, Material, Primitive, Scene } from '@gltf-transform/core';
import type { MappingList } from '@gltf-transform/extensions';
import { writeUsdz } from '../usdz/usdz-writer.js';

/** KHR_materials_variants: one mesh, several looks (a chair in five fabrics). */
const EXTENSION = 'KHR_materials_variants';

/** The variants' names in the file's order; unnamed ones are called "Variant n" so the list stays usable. */
export function listVariants(doc: Document): string[] {
  const ext = doc.getRoot().listExtensionsUsed().find((e) => e.extensionName === EXTENSION) as { listVariants(): { getName(): string }[] } | undefined;
  return ext ? ext.listVariants().map((v, i) => v.getName() || `Variant ${i + 1}`) : [];
}

function mappedPrimitives(doc: Document) {
  const out: { prim: Primitive; mappings: { material: Material | null; variants: string[] }[] }[] = [];
  for (const mesh of doc.getRoot().listMeshes()) {
    for (const prim of mesh.listPrimitives()) {
      const list = prim.getExtension<MappingList>(EXTENSION);
      if (!list) continue;
      out.push({ prim, mappings: list.listMappings().map((m) => ({ material: m.getMaterial(), variants: m.listVariants().map((v) => v.getName()) })) });
    }
  }
  return out;
}

/**
 * Quick Look cannot switch variants, so each variant gets its own USDZ: the document's primitives take that
 * variant's materials for the write and get their own back afterwards.
 */
export async function writeVariantUsdz(doc: Document, scene: Scene, maxTriangles: number): Promise<{ name: string; usdz: Buffer }[]> {
  const names = listVariants(doc);
  if (names.length === 0) return [];
  const prims = mappedPrimitives(doc);
  const own = new Map(prims.map(({ prim }) => [prim, prim.getMaterial()]));
  const out: { name: string; usdz: Buffer }[] = [];
  try {
    for (const name of names) {
      for (const { prim, mappings } of prims) {
        const mapped = mappings.find((m) => m.variants.includes(name));
        prim.setMaterial(mapped ? mapped.material : own.get(prim)!);
      }
      out.push({ name, usdz: (await writeUsdz(doc, scene, maxTriangles)).usdz });
    }
  } finally {
    for (const [prim, material] of own) prim.setMaterial(material);
  }
  return out;
}
