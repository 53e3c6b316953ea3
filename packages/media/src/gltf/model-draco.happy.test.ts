import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { draco, getBounds } from '@gltf-transform/functions';
import draco3d from 'draco3dgltf';
import { describe, expect, it } from 'vitest';
import { boxDocument, fakeFetcher, testIO } from './model-fixtures.test-support.js';
import { processModelBuffer } from './model-pipeline.js';

/** A Draco-compressed GLB, as Blender or gltf-transform write one: the box's geometry exists only compressed. */
async function dracoBox(size: [number, number, number]): Promise<Buffer> {
  const { doc } = boxDocument({ meshSize: size });
  for (const buffer of doc.getRoot().listBuffers()) buffer.setURI('');
  await doc.transform(draco({ method: 'edgebreaker' }));
  const io = new NodeIO()
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'draco3d.encoder': await draco3d.createEncoderModule(), 'draco3d.decoder': await draco3d.createDecoderModule() });
  return Buffer.from(await io.writeBinary(doc));
}

describe('Draco-compressed models', () => {
  it('import with their true dimensions, and the stored GLB needs no decoder', async () => {
    const glb = await dracoBox([0.42, 0.3, 0.18]);
    expect(glb.toString('latin1')).toContain('KHR_draco_mesh_compression');

    const result = await processModelBuffer(glb, null, fakeFetcher({}).fetchBytes);
    expect(result.dimensions.width).toBeCloseTo(0.42, 3);
    expect(result.dimensions.height).toBeCloseTo(0.3, 3);
    expect(result.dimensions.depth).toBeCloseTo(0.18, 3);
    expect(result.triangles).toBe(12);

    // Read back with a plain reader (no Draco decoder): the output is uncompressed and complete.
    const out = await testIO().readBinary(result.glb);
    expect(out.getRoot().listExtensionsUsed().map((e) => e.extensionName)).not.toContain('KHR_draco_mesh_compression');
    const { min, max } = getBounds(out.getRoot().listScenes()[0]!);
    expect(max[0] - min[0]).toBeCloseTo(0.42, 3);
  }, 60_000);
});
