import { describe, expect, it } from 'vitest';
import { listZipEntries } from '../usdz/usdz-zip.js';
import { glbBytes, testIO } from './model-fixtures.test-support.js';
import { processModelBuffer, rescaleModel } from './model-pipeline.js';
import { listVariants } from './model-variants.js';
import { VARIANT_COLOURS, variantBoxDocument } from './variant-fixtures.test-support.js';

const refuse = async () => {
  throw new Error('no external resources in this test');
};

/** The diffuse colours a USDZ's layer gives its materials. */
function diffuseColours(usdz: Buffer): number[][] {
  const layer = listZipEntries(usdz).find((e) => e.name.endsWith('.usda'))!;
  const text = usdz.toString('utf8', layer.dataOffset, layer.dataOffset + layer.size);
  return [...text.matchAll(/inputs:diffuseColor = \(([^)]*)\)/g)].map((m) => m[1].split(',').map(Number));
}

describe('KHR_materials_variants through import and rescale', () => {
  it('keeps the variants in the GLB and writes one USDZ per variant with its own material', async () => {
    const input = await glbBytes(variantBoxDocument().doc);
    const model = await processModelBuffer(input, null, refuse);
    expect(model.variants).toEqual(['Red', 'Green', 'Blue']);
    expect(listVariants(await testIO().readBinary(model.glb))).toEqual(['Red', 'Green', 'Blue']);
    expect(model.usdzVariants.map((v) => v.name)).toEqual(['Red', 'Green', 'Blue']);
    const colours = model.usdzVariants.map((v) => diffuseColours(v.usdz)[0]);
    // Each variant's USDZ carries its own colour: red, green and blue lead their own channel.
    for (const [i, name] of ['Red', 'Green', 'Blue'].entries()) {
      const channel = VARIANT_COLOURS[name].slice(0, 3).indexOf(Math.max(...VARIANT_COLOURS[name].slice(0, 3)));
      expect(colours[i].indexOf(Math.max(...colours[i])), name).toBe(channel);
    }
    // The default USDZ keeps the model's own grey.
    const grey = diffuseColours(model.usdz)[0];
    expect(Math.max(...grey) - Math.min(...grey)).toBeLessThan(0.01);

    const rescaled = await rescaleModel(model.glb, 2);
    expect(rescaled.variants).toEqual(['Red', 'Green', 'Blue']);
    expect(rescaled.usdzVariants).toHaveLength(3);
    expect(rescaled.dimensions.width).toBeCloseTo(1, 3);
  });

  it('a model without variants has none and no extra USDZ', async () => {
    const box = variantBoxDocument();
    for (const ext of box.doc.getRoot().listExtensionsUsed()) ext.dispose();
    const model = await processModelBuffer(await glbBytes(box.doc), null, refuse);
    expect(model.variants).toEqual([]);
    expect(model.usdzVariants).toEqual([]);
  });
});
