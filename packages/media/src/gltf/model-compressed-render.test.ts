import { existsSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { makeModel } from '../../../../bench/models-lib/variety.mjs';
import { renderTurntable } from '../render/renders.js';
import { fakeFetcher } from './model-fixtures.test-support.js';
import { processModelBuffer } from './model-pipeline.js';

const chromiumPath = process.env.PLINTH_CHROMIUM_PATH || '/usr/bin/chromium';

/** Share of the frame the model covers (pixels with any opacity on the transparent background). */
async function coverage(png: Buffer): Promise<number> {
  const { data, info } = await sharp(png).ensureAlpha().extractChannel(3).raw().toBuffer({ resolveWithObject: true });
  let covered = 0;
  for (const a of data) if (a > 0) covered++;
  return covered / (info.width * info.height);
}

describe.skipIf(!existsSync(chromiumPath))('a stored model that kept its compression renders (the import poster)', () => {
  it.each(['draco-chair', 'meshopt-lamp'])('%s', async (name) => {
    const stored = await processModelBuffer((await makeModel(name)).glb, null, fakeFetcher({}).fetchBytes);
    expect(stored.compression).not.toBeNull();
    const [png] = await renderTurntable(stored.glb, { chromiumPath, views: 1, size: 128 });
    expect(await coverage(png!)).toBeGreaterThan(0.05);
  }, 120_000);
});
