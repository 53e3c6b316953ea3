import { beforeAll, describe, expect, it } from 'vitest';
import { largestPieceShare } from '../posed-gate.js';
import { generatePosedHull } from '../posed-generator.js';
import { prepareViews } from '../prepared-view.js';
import { resolveHints } from '../generator.js';
import { givenRecovery, renderConcaveCapture, type ConcaveCapture, type ConcaveProduct } from './stereo-fixtures.test-support.js';
import { meshSize, runStereoStage, segmentHits, type StereoStage } from './stereo-test-helpers.test-support.js';

const CHROMIUM = '/usr/bin/chromium';

// The acceptance line of multi-view stereo, on painted concave products photographed by hand with the true
// cameras given (so what is measured is stereo, not the camera recovery): against the true surface, Chamfer
// at most half the exact-mask hull's and F at 1 % of the diagonal at least 0.80; a ray through the opening
// the hull closes passes; one piece; every side within 5 %; and through the posed generator, posed_stereo
// with a held-out silhouette IoU of at least 0.9.
/** A segment through an opening of the product that must not touch the model, and whether the hull closes it. */
interface Opening {
  from: number[];
  to: number[];
  hullCloses: boolean;
}

function acceptanceLine(product: ConcaveProduct, opts: { width: number; height: number; maxSide?: number; trueHeight: number; openings: Opening[]; round?: boolean }) {
  let capture: ConcaveCapture;
  let stage: StereoStage;
  beforeAll(async () => {
    capture = await renderConcaveCapture({ chromiumPath: CHROMIUM, product, count: 24, width: opts.width, height: opts.height });
    stage = await runStereoStage(capture, { maxSide: opts.maxSide });
  }, 900_000);

  it('lands on the true surface: Chamfer at most half the hull\u2019s, F at 1% of the diagonal at least 0.80', () => {
    const { hull, stereo } = stage.scores;
    console.log(product, { hull, stereo, coverage: stage.coverage, depthShare: stage.stereo.depthShare, seconds: stage.stereo.seconds });
    expect(stereo.chamfer).toBeLessThanOrEqual(hull.chamfer / 2);
    expect(stereo.fscore).toBeGreaterThanOrEqual(0.8);
    expect(stage.coverage).toBeGreaterThan(0.5);
  });

  it('is open where the product is, in one piece, at the true size', () => {
    for (const { from, to, hullCloses } of opts.openings) {
      expect(segmentHits(stage.hullMesh, from, to)).toBe(hullCloses);
      expect(segmentHits(stage.stereoMesh, from, to)).toBe(false);
    }
    expect(largestPieceShare(stage.stereoMesh)).toBeGreaterThanOrEqual(0.99);
    const truth = meshSize(capture.truth.positions);
    const model = meshSize(stage.stereoMesh.positions);
    for (let a = 0; a < 3; a++) expect(Math.abs(model[a] / truth[a] - 1)).toBeLessThan(0.05);
  });

  it('comes out of the posed generator as posed_stereo, agreeing with photos it was made without', { timeout: 900_000 }, async () => {
    const prepared = await prepareViews(
      capture.shots.map((s) => ({ image: s.image, mask: s.mask })),
      resolveHints({}),
    );
    const steps: string[] = [];
    const result = await generatePosedHull(prepared, givenRecovery(capture), { triangleBudget: 20_000, textureSize: 512, dimensions: { height: opts.trueHeight } }, async (_, step) => {
      if (steps.at(-1) !== step) steps.push(step);
    });
    console.log(product, 'generated', result.quality, result.dimensions);
    expect(steps).toEqual(['carving', 'checking', 'matching', 'meshing', 'texturing', 'storing_model']);
    expect(result.quality.method).toBe('posed_stereo');
    expect(result.quality.stereo_coverage).toBeGreaterThan(0.5);
    expect(result.quality.heldout_iou!.median).toBeGreaterThanOrEqual(0.9);
    expect(result.quality.largest_piece).toBeGreaterThanOrEqual(0.99);
    expect(result.dimensions.height).toBeCloseTo(opts.trueHeight, 4);
    // The generator turns the model to its footprint's longer side, a heading of its own choosing: its
    // box is the true one only for a round product (the others' size is checked above, in the true frame).
    if (opts.round) {
      const truth = meshSize(capture.truth.positions);
      const scale = opts.trueHeight / truth[1];
      expect(Math.abs(result.dimensions.width / (truth[0] * scale) - 1)).toBeLessThan(0.05);
      expect(Math.abs(result.dimensions.depth / (truth[2] * scale) - 1)).toBeLessThan(0.05);
    }
  });
}

// The hull closes the bowl with a lid at its rim: straight down the middle to just above the inner floor
// (4 mm thick) must pass.
describe('stereo beyond the hull on a synthetic bowl (true cameras)', () => {
  acceptanceLine('bowl', { width: 400, height: 300, maxSide: 320, trueHeight: 0.05, openings: [{ from: [0.001, 0.2, 0.002], to: [0.001, 0.012, 0.002], hullCloses: true }], round: true });
});

// The chair's hull is open between the legs already (the photos see through), but grows a tent under the
// seat and wedges around the back that no photo sees into; stereo must not close what the hull had open.
describe('stereo beyond the hull on a synthetic chair (true cameras)', () => {
  acceptanceLine('chair', { width: 640, height: 480, trueHeight: 0.142, openings: [{ from: [-0.1, 0.03, 0.001], to: [0.1, 0.03, 0.001], hullCloses: false }] });
});

// The mug's cup is 84 mm deep and 72 mm across: from the photos' 15–40° no line of sight reaches the
// lower half of its inside, which stereo alone leaves as a closed cone. Down the middle to 6 mm above the
// inner floor must pass (the hull closes it with a lid at the rim), and so must the handle's hole (open in
// the hull already: the photos see through it).
describe('stereo beyond the hull on a synthetic mug (true cameras)', () => {
  acceptanceLine('mug', {
    width: 640,
    height: 480,
    trueHeight: 0.09,
    openings: [
      { from: [0.001, 0.2, 0.002], to: [0.001, 0.012, 0.002], hullCloses: true },
      { from: [0.052, 0.045, -0.1], to: [0.052, 0.045, 0.1], hullCloses: false },
    ],
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
