import { describe, expect, it } from 'vitest';
// The same ten files bench/models.mjs imports through the API, built with known true sizes.
import { drawnTriangles, makeModel, MODEL_KINDS, restPoseSize, sizeError, usdzPointsSize, varietyIO } from '../../../../bench/models-lib/variety.mjs';
import { fakeFetcher } from './model-fixtures.test-support.js';
import { processModelBuffer } from './model-pipeline.js';

const TOLERANCE = 0.001;

describe('models as other tools write them', () => {
  it.each(MODEL_KINDS.map((k) => k.name))('%s: true size within a thousandth in the GLB and the USDZ, every triangle kept', async (name) => {
    const model = await makeModel(name, { largeTriangles: 20_000 });
    const result = await processModelBuffer(model.glb, null, fakeFetcher({}).fetchBytes);
    const { width, height, depth } = result.dimensions;
    expect(sizeError([width, height, depth], model.trueSize), `${name}: ${width} × ${height} × ${depth} vs ${model.trueSize.join(' × ')}`).toBeLessThan(TOLERANCE);
    expect(result.triangles).toBe(model.triangles);
    expect(result.usdz.subarray(0, 2).toString('latin1')).toBe('PK');
    expect(sizeError(usdzPointsSize(result.usdz), model.trueSize), 'the USDZ').toBeLessThan(TOLERANCE);

    // The stored GLB, read back and measured independently, shows the same thing.
    const stored = await (await varietyIO()).readBinary(result.glb);
    expect(sizeError(restPoseSize(stored), model.trueSize)).toBeLessThan(TOLERANCE);
    expect(drawnTriangles(stored)).toBe(model.triangles);
  }, 60_000);

  it('a skinned rig whose armature scales and turns the mesh is measured as shown, not from its raw vertices', async () => {
    const model = await makeModel('skinned-arm');
    // The raw vertices are an upright arm 2 m... in centimetres: 20 × 200 × 20 units.
    const result = await processModelBuffer(model.glb, null, fakeFetcher({}).fetchBytes);
    expect(result.dimensions.depth).toBeCloseTo(2, 6);
    expect(result.dimensions.height).toBeCloseTo(0.2, 6);
    // USDZ has no skins: the arm goes in as shown at rest, not as its raw centimetre vertices.
    expect(usdzPointsSize(result.usdz).map((v) => v.toFixed(4))).toEqual(['0.2000', '0.2000', '2.0000']);
  }, 60_000);
});
