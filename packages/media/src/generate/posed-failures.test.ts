import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { MediaError } from '../errors.js';
import { colmapAvailable } from '../poses/colmap-runner.js';
import { createBuiltinGenerator } from './builtin-generator.js';
import type { GeneratorView } from './generator.js';
import { renderSyntheticCapture, type SyntheticCapture } from './posed-fixtures.test-support.js';

// The ways a capture with unknown cameras fails, through the generator a server runs (`capture: auto`):
// each ends with its reason, never with a model of the table or of two photos.

const hasColmap = await colmapAvailable();
const CHROMIUM = '/usr/bin/chromium';

/** A plain disc on a plain backdrop with its exact mask: a product, but nothing for matching to hold on to. */
async function plainView(i: number): Promise<GeneratorView> {
  const disc = (fill: string, back: string) =>
    sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="480" height="360"><rect width="100%" height="100%" fill="${back}"/><circle cx="240" cy="180" r="90" fill="${fill}"/></svg>`));
  return {
    image: await disc(`rgb(${40 + i * 50},110,170)`, 'rgb(246,245,243)').jpeg().toBuffer(),
    mask: await disc('#fff', '#000').toColourspace('b-w').png().toBuffer(),
  };
}

describe.skipIf(!hasColmap)('posed generation failures (unknown cameras)', () => {
  let product: SyntheticCapture;

  beforeAll(async () => {
    // 24 photos round the textured product on its textured table: neighbours overlap by far more than COLMAP needs.
    product = await renderSyntheticCapture({ chromiumPath: CHROMIUM, count: 24, width: 480, height: 360 });
  }, 120_000);

  it('two overlapping photos and three that match nothing: poses_not_found, counting what registered', { timeout: 240_000 }, async () => {
    const views = [...product.shots.slice(0, 2).map((s) => ({ image: s.image, mask: s.mask })), ...(await Promise.all([0, 1, 2].map(plainView)))];
    const run = createBuiltinGenerator().generate(views, { capture: 'auto' });
    const error = (await run.catch((e: unknown) => e)) as MediaError;
    console.info('two of five', error.message, error.details);
    expect(error).toBeInstanceOf(MediaError);
    expect(error.reason).toBe('poses_not_found');
    // COLMAP places the overlapping pair and nothing else: too few to carve.
    expect(error.details).toMatchObject({ views_total: 5, views_registered: 2 });
  });
});
