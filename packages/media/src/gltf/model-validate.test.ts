import { describe, expect, it, vi } from 'vitest';
import { boxDocument, glbBytes, gltfFiles } from './model-fixtures.test-support.js';
import { UnrecognisedAsset, validateAsset, validateGlb } from './model-validate.js';

describe('validateAsset', () => {
  it('asks our resource function for external URIs and never fetches them itself', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const metadata = 'http://169.254.169.254/latest/meta-data';
    const gltf = { asset: { version: '2.0' }, buffers: [{ uri: metadata, byteLength: 16 }], bufferViews: [{ buffer: 0, byteLength: 16 }] };
    const report = await validateAsset(Buffer.from(JSON.stringify(gltf)), new Map());
    const io = report.messages.find((m) => m.code === 'IO_ERROR');
    // The IO error carries our refusal text, proving the lookup went through our map.
    expect(io).toMatchObject({ severity: 0, pointer: '/buffers/0/uri' });
    expect(io?.message).toContain('was not pre-fetched');
    expect(report.errors).toBeGreaterThan(0);
    expect(fetchSpy).not.toHaveBeenCalled();
    fetchSpy.mockRestore();
  });

  it('validates resources that are views into a shared buffer against their own bytes', async () => {
    const { json, files } = await gltfFiles(boxDocument({ meshSize: [1, 2, 3] }).doc);
    // Place the .bin at a non-zero offset inside a larger allocation, like Node's Buffer pool does.
    const backing = new Uint8Array(files['box.bin'].byteLength + 40).fill(0xff);
    backing.set(files['box.bin'], 24);
    const view = backing.subarray(24, 24 + files['box.bin'].byteLength);
    const report = await validateAsset(json, new Map([['box.bin', view]]));
    expect(report.messages.filter((m) => m.severity === 0)).toEqual([]);
    expect(report.triangles).toBe(12);
  });

  it('reports a non-GLB handed to validateGlb as an error instead of throwing', async () => {
    const report = await validateGlb(Buffer.from('not a model at all'));
    expect(report.errors).toBeGreaterThan(0);
    expect(report.messages[0]).toMatchObject({ code: 'GLB_INVALID_MAGIC', severity: 0 });
    // Without a forced format the validator cannot even detect one; that surfaces as UnrecognisedAsset.
    await expect(validateAsset(Buffer.from('not a model at all'))).rejects.toBeInstanceOf(UnrecognisedAsset);
    const ok = await validateGlb(await glbBytes(boxDocument({ meshSize: [1, 1, 1] }).doc));
    expect(ok.errors).toBe(0);
  });
});
