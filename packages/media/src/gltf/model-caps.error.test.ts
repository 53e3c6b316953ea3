import { describe, expect, it } from 'vitest';
import { processModelBuffer } from './model-pipeline.js';
import { deepChain, hostileModels, wideInstancing } from './hostile-models.test-support.js';
import { checkDeclaredCaps } from './model-caps.js';
import { parseContainer } from './model-container.js';
import { testIO } from './model-fixtures.test-support.js';
import { writeUsdz } from '../usdz/usdz-writer.js';

const noFetch = async (url: string): Promise<Buffer> => {
  throw new Error(`no fetch expected (${url})`);
};

describe('model input caps', () => {
  it('refuses each hostile model with its reason and the cap it broke, before the validator runs', async () => {
    for (const model of await hostileModels()) {
      const started = Date.now();
      const err = await processModelBuffer(model.bytes, null, noFetch).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, model.name).toMatchObject({ name: 'MediaError', reason: model.reason });
      if (model.cap) expect((err as { details: { cap: string } }).details.cap, model.name).toBe(model.cap);
      console.log(`${model.name}: ${(model.bytes.length / 1024).toFixed(0)} KB refused in ${Date.now() - started} ms (${(err as Error).message})`);
    }
  });

  it('walks a 100,000-deep chain without recursion when the caps are raised', () => {
    const { json } = parseContainer(deepChain(100_000));
    expect(() => checkDeclaredCaps(json, { maxTriangles: 10, maxNodes: 200_000, maxDepth: 200_000, maxTextureSide: 1, maxTexturePixels: 1, maxBufferBytes: 1e9 })).not.toThrow();
  });

  it('accepts a model just under the caps, and the USDZ writer holds the same triangle cap', async () => {
    const glb = await wideInstancing(10, 100);
    const model = await processModelBuffer(glb, null, noFetch, { caps: { maxTriangles: 1_000, maxNodes: 100, maxDepth: 4, maxTextureSide: 64, maxTexturePixels: 4096, maxBufferBytes: 1e6 } });
    expect(model.triangles).toBe(1_000);
    await expect(
      processModelBuffer(glb, null, noFetch, { caps: { maxTriangles: 999, maxNodes: 100, maxDepth: 4, maxTextureSide: 64, maxTexturePixels: 4096, maxBufferBytes: 1e6 } }),
    ).rejects.toMatchObject({ reason: 'model_too_complex', details: { cap: 'maxTriangles', limit: 999 } });
    // The writer counts placements itself, for documents that never went through the pre-scan (a rescale).
    const doc = await testIO().readBinary(new Uint8Array(glb));
    await expect(writeUsdz(doc, undefined, 999)).rejects.toMatchObject({ reason: 'model_too_complex', details: { cap: 'maxTriangles', found: 1_000 } });
    await expect(writeUsdz(doc, undefined, 1_000)).resolves.toHaveProperty('usdz');
  });
});
