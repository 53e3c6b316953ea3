import { KHRMaterialsVariants } from '@gltf-transform/extensions';
import { boxDocument } from './model-fixtures.test-support.js';

/** Linear base colours of the fixture's variants; the box's own material is a neutral grey. */
export const VARIANT_COLOURS: Record<string, [number, number, number, number]> = {
  Red: [0.8, 0.02, 0.02, 1],
  Green: [0.02, 0.6, 0.02, 1],
  Blue: [0.02, 0.05, 0.8, 1],
};

/** A box with three KHR_materials_variants looks, Red, Green and Blue, over a grey default material. */
export function variantBoxDocument(meshSize: [number, number, number] = [0.5, 0.4, 0.3]) {
  const box = boxDocument({ meshSize });
  const { doc } = box;
  box.material.setBaseColorFactor([0.5, 0.5, 0.5, 1]);
  const ext = doc.createExtension(KHRMaterialsVariants);
  const list = ext.createMappingList();
  for (const [name, colour] of Object.entries(VARIANT_COLOURS)) {
    const material = doc.createMaterial(`${name} Fabric`).setBaseColorFactor(colour).setRoughnessFactor(0.7).setMetallicFactor(0);
    list.addMapping(ext.createMapping().setMaterial(material).addVariant(ext.createVariant(name)));
  }
  box.node.getMesh()!.listPrimitives()[0].setExtension('KHR_materials_variants', list);
  return box;
}
