import { getBounds } from '@gltf-transform/functions';
import { describe, expect, it } from 'vitest';
import { makeModel, varietyIO } from '../../../../bench/models-lib/variety.mjs';
import { fakeFetcher, testIO } from './model-fixtures.test-support.js';
import { processModelBuffer, rescaleModel } from './model-pipeline.js';

const extensionsOf = async (glb: Buffer) => (await (await varietyIO()).readBinary(glb)).getRoot().listExtensionsUsed().map((e) => e.extensionName);

describe('compressed models keep their compression', () => {
  it('a Draco model imports with its true size and is stored Draco-compressed; the USDZ is plain', async () => {
    const model = await makeModel('draco-chair');
    expect(model.extensions).toContain('KHR_draco_mesh_compression');
    const result = await processModelBuffer(model.glb, null, fakeFetcher({}).fetchBytes);
    expect(result.dimensions.width).toBeCloseTo(0.44, 4);
    expect(result.dimensions.height).toBeCloseTo(0.92, 4);
    expect(result.triangles).toBe(model.triangles);
    expect(result.compression).toBe('draco');
    expect(await extensionsOf(result.glb)).toContain('KHR_draco_mesh_compression');
    // A reader without a Draco decoder cannot open it: the geometry really is compressed.
    await expect(testIO().readBinary(result.glb)).rejects.toThrow();
    const { min, max } = getBounds((await (await varietyIO()).readBinary(result.glb)).getRoot().listScenes()[0]!);
    expect(max[1] - min[1]).toBeCloseTo(0.92, 4);
    expect(result.usdz.includes(Buffer.from('draco'))).toBe(false);
  }, 60_000);

  it('a meshopt model is stored meshopt-compressed, and a rescale keeps the compression', async () => {
    const model = await makeModel('meshopt-lamp');
    const result = await processModelBuffer(model.glb, null, fakeFetcher({}).fetchBytes);
    expect(result.compression).toBe('meshopt');
    expect(await extensionsOf(result.glb)).toContain('EXT_meshopt_compression');
    expect(result.dimensions.height).toBeCloseTo(0.46, 4);

    const rescaled = await rescaleModel(result.glb, 2);
    expect(rescaled.compression).toBe('meshopt');
    expect(rescaled.dimensions.height).toBeCloseTo(0.92, 3);
    expect(rescaled.triangles).toBe(model.triangles);
  }, 60_000);

  it('a plain model stays plain', async () => {
    const model = await makeModel('pbr-box');
    const result = await processModelBuffer(model.glb, null, fakeFetcher({}).fetchBytes);
    expect(result.compression).toBeNull();
    const used = await extensionsOf(result.glb);
    expect(used).not.toContain('KHR_draco_mesh_compression');
    expect(used).not.toContain('EXT_meshopt_compression');
  }, 60_000);
});
