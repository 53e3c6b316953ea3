import { existsSync } from 'node:fs';
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { MeshoptDecoder } from 'meshoptimizer';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeDeliveries, type DeliveryResult } from './deliveries.js';
import { resolveBudgets, DEFAULT_DELIVERY_BUDGETS, type DeliveryBudgets } from './delivery-budgets.js';
import { warmViewRenderer } from './delivery-fidelity.js';
import { scanDocument } from './delivery-fixtures.test-support.js';

const chromiumPath = process.env.PLINTH_CHROMIUM_PATH || '/usr/bin/chromium';
const hasChromium = existsSync(chromiumPath);
if (!hasChromium) console.warn(`[plinth] delivery fidelity tests skipped: no Chromium at ${chromiumPath}`);

const io = () => new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({ 'meshopt.decoder': MeshoptDecoder });

async function scan(rings: number, textureSize: number): Promise<Buffer> {
  return Buffer.from(await io().writeBinary(await scanDocument({ rings, segments: rings, bands: 2, textureSize })));
}

// Scaled-down budgets for a scaled-down scan (7,200 triangles, two 512 px textures): the same steps as the
// defaults on a heavy model, in seconds.
const SMALL: DeliveryBudgets = resolveBudgets(DEFAULT_DELIVERY_BUDGETS, {
  web: { maxBytes: 200_000, maxTriangles: 4_000, maxTexturePx: 256 },
  mobile: { maxBytes: 100_000, maxTriangles: 2_000, maxTexturePx: 128 },
  usdz: { maxBytes: 900_000, maxTexturePx: 256 },
});

describe.skipIf(!hasChromium)('makeDeliveries (8 real renders per check)', () => {
  const render = warmViewRenderer(chromiumPath);
  let master: Buffer;
  let result: DeliveryResult;
  beforeAll(async () => {
    master = await scan(60, 512);
    result = await makeDeliveries(master, { budgets: SMALL, render, size: 256 });
  }, 120_000);

  it('brings each delivery within its budget and keeps SSIM ≥ 0.95 against the master', async () => {
    expect(result.warnings).toEqual([]);
    for (const name of ['web', 'mobile', 'usdz'] as const) {
      const f = result[name];
      expect(f.bytes, name).toBeLessThanOrEqual(SMALL[name].maxBytes);
      expect(f.maxTexturePx, name).toBeLessThanOrEqual(SMALL[name].maxTexturePx);
      expect(f.ssim, name).toBeGreaterThanOrEqual(0.95);
      expect(f.ssim, name).toBeLessThan(1);
      expect(f.overBudget).toBe(false);
      expect(f.bytes).toBe(f.data.byteLength);
    }
    expect(result.web.triangles).toBeLessThanOrEqual(4_000);
    expect(result.mobile.triangles).toBeLessThanOrEqual(2_000);
    expect(result.usdz.data.subarray(0, 2).toString('latin1')).toBe('PK');
    // The master drawn once for the three deliveries, and at least one candidate for each.
    expect(result.renders).toBeGreaterThanOrEqual(4);
    expect(result.steps['render-master']).toBeGreaterThan(0);
  });

  it('writes GLB deliveries with WebP textures and meshopt compression, readable back with the same triangles', async () => {
    const doc = await io().readBinary(result.mobile.data);
    const used = doc.getRoot().listExtensionsUsed().map((e) => e.extensionName);
    expect(used).toEqual(expect.arrayContaining(['EXT_meshopt_compression', 'EXT_texture_webp']));
    expect(doc.getRoot().listTextures().every((t) => t.getMimeType() === 'image/webp')).toBe(true);
    const tris = doc.getRoot().listMeshes().flatMap((m) => m.listPrimitives()).reduce((n, p) => n + p.getIndices()!.getCount() / 3, 0);
    expect(tris).toBe(result.mobile.triangles);
  });

  it('passes an already light model through byte-identical', async () => {
    const light = await makeDeliveries(master, { budgets: DEFAULT_DELIVERY_BUDGETS, render });
    expect(light.web.passthrough).toBe(true);
    expect(light.web.data.equals(master)).toBe(true);
    expect(light.mobile.data.equals(master)).toBe(true);
    expect(light.web.ssim).toBe(1);
    expect(light.warnings).toEqual([]);
    // Nothing was made lighter, so nothing was drawn.
    expect(light.renders).toBe(0);
  });

  it('warns over_budget on an impossible budget and still keeps SSIM ≥ 0.95', async () => {
    const budgets = resolveBudgets(DEFAULT_DELIVERY_BUDGETS, { web: { maxBytes: 2_000, maxTriangles: 40, maxTexturePx: 8 } });
    const r = await makeDeliveries(master, { budgets, render, size: 256 });
    expect(r.web.overBudget).toBe(true);
    expect(r.web.ssim).toBeGreaterThanOrEqual(0.95);
    expect(r.web.bytes).toBeLessThan(master.byteLength);
    // 8 px textures blur the paint past the floor: it backed off to larger ones rather than deliver that.
    expect(r.web.maxTexturePx).toBeGreaterThan(8);
    expect(r.warnings).toEqual([expect.objectContaining({ code: 'over_budget', delivery: 'web', bytes: r.web.bytes })]);
    expect(r.mobile.passthrough).toBe(true);
  }, 180_000);
});
