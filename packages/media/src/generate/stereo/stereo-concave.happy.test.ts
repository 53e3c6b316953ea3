import { beforeAll, describe, expect, it } from 'vitest';
import { largestPieceShare } from '../posed-gate.js';
import { generatePosedHull } from '../posed-generator.js';
import { prepareViews } from '../prepared-view.js';
import { resolveHints } from '../generator.js';
import { givenRecovery, renderConcaveCapture, type ConcaveCapture } from './stereo-fixtures.test-support.js';
import { meshSize, runStereoStage, segmentHits, type StereoStage } from './stereo-test-helpers.test-support.js';

const CHROMIUM = '/usr/bin/chromium';

// A painted bowl photographed by hand from above its rim (24 photos, 400 × 300) with the true cameras given,
// so what is measured is stereo, not the camera recovery: the hull closes the bowl with a lid at its rim;
// stereo must open it, and land on the real surface.
describe('stereo beyond the hull on a synthetic bowl (true cameras)', () => {
  let bowl: ConcaveCapture;
  let stage: StereoStage;
  beforeAll(async () => {
    bowl = await renderConcaveCapture({ chromiumPath: CHROMIUM, product: 'bowl', count: 24, width: 400, height: 300 });
    stage = await runStereoStage(bowl, { maxSide: 320 });
  }, 600_000);

  it('lands on the true surface: Chamfer at most half the hull\u2019s, F at 1% of the diagonal at least 0.80', () => {
    const { hull, stereo } = stage.scores;
    console.log('bowl', { hull, stereo, coverage: stage.coverage, depthShare: stage.stereo.depthShare, seconds: stage.stereo.seconds });
    expect(stereo.chamfer).toBeLessThanOrEqual(hull.chamfer / 2);
    expect(stereo.fscore).toBeGreaterThanOrEqual(0.8);
    expect(stage.coverage).toBeGreaterThan(0.5);
  });

  it('is hollow, one piece, and the size of the bowl', () => {
    // Straight down the middle to just above the inner floor (4 mm thick): the hull's lid stops it, stereo's bowl does not.
    const [top, floor] = [[0.001, 0.2, 0.002], [0.001, 0.012, 0.002]];
    expect(segmentHits(stage.hullMesh, top, floor)).toBe(true);
    expect(segmentHits(stage.stereoMesh, top, floor)).toBe(false);
    expect(largestPieceShare(stage.stereoMesh)).toBeGreaterThanOrEqual(0.99);
    const truth = meshSize(bowl.truth.positions);
    const model = meshSize(stage.stereoMesh.positions);
    for (let a = 0; a < 3; a++) expect(Math.abs(model[a] / truth[a] - 1)).toBeLessThan(0.05);
  });

  it('comes out of the posed generator as posed_stereo at the true size', { timeout: 600_000 }, async () => {
    const prepared = await prepareViews(
      bowl.shots.map((s) => ({ image: s.image, mask: s.mask })),
      resolveHints({}),
    );
    const steps: string[] = [];
    const result = await generatePosedHull(prepared, givenRecovery(bowl), { triangleBudget: 20_000, textureSize: 512, dimensions: { height: 0.05 } }, async (_, step) => {
      if (steps.at(-1) !== step) steps.push(step);
    });
    console.log('bowl generated', result.quality, result.dimensions);
    expect(steps).toEqual(['carving', 'checking', 'matching', 'meshing', 'texturing', 'storing_model']);
    expect(result.quality.method).toBe('posed_stereo');
    expect(result.quality.stereo_coverage).toBeGreaterThan(0.5);
    expect(result.quality.largest_piece).toBeGreaterThanOrEqual(0.99);
    expect(Math.abs(result.dimensions.width / 0.15 - 1)).toBeLessThan(0.05);
    expect(Math.abs(result.dimensions.depth / 0.15 - 1)).toBeLessThan(0.05);
  });
});

describe('stereo on a product with no texture (true cameras)', () => {
  it('keeps the hull and says posed_hull', { timeout: 600_000 }, async () => {
    const plain = await renderConcaveCapture({ chromiumPath: CHROMIUM, product: 'mug', count: 16, width: 320, height: 240, plain: true });
    const prepared = await prepareViews(
      plain.shots.map((s) => ({ image: s.image, mask: s.mask })),
      resolveHints({}),
    );
    const result = await generatePosedHull(prepared, givenRecovery(plain), { triangleBudget: 20_000, textureSize: 512, dimensions: { height: 0.09 } }, async () => undefined);
    console.log('plain mug', result.quality, result.dimensions);
    expect(result.quality.method).toBe('posed_hull');
    expect(result.quality.stereo_coverage).toBeLessThan(0.25);
    expect(result.triangles).toBeGreaterThan(100);
    expect(result.dimensions.height).toBeCloseTo(0.09, 4);
  });
});
