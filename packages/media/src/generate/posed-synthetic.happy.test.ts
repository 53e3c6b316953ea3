import { describe, expect, it } from 'vitest';
import { colmapAvailable, recoverCamerasWithColmap } from '../poses/colmap-runner.js';
import { resolveHints } from './generator.js';
import { carveAtTrueHeight, renderSyntheticCapture } from './posed-fixtures.test-support.js';
import { prepareViews } from './prepared-view.js';

const hasColmap = await colmapAvailable();
const CHROMIUM = '/usr/bin/chromium';

describe.skipIf(!hasColmap)('posed generation from handheld synthetic photos (unknown cameras)', () => {
  it('recovers the cameras, carves one piece at the true size, and agrees with views it never saw', { timeout: 300_000 }, async () => {
    // 24 photos round the product, one every 15°, as the capture guide asks.
    const capture = await renderSyntheticCapture({ chromiumPath: CHROMIUM, count: 24, width: 480, height: 360 });
    const views = capture.shots.map((s) => ({ image: s.image, mask: s.mask }));
    const recovery = await recoverCamerasWithColmap({ images: views.map((v) => v.image) }, { matcher: 'exhaustive' });
    expect(recovery.cameras.length).toBeGreaterThanOrEqual(20);
    const prepared = await prepareViews(views, resolveHints({}));
    // Three photos are kept out of carving and used only to judge the model.
    const heldOut = new Set([3, 11, 19]);
    const { result, errors } = await carveAtTrueHeight(prepared, recovery, capture.size, heldOut);
    console.log('synthetic handheld', recovery.cameras.length, result.dimensions, errors, result.quality, result.heldOutIous, recovery.timings);
    // One piece, agreeing with the photos it was carved from and with three it never saw.
    expect(result.quality.largest_piece).toBeGreaterThanOrEqual(0.99);
    expect(result.quality.silhouette_iou!.median).toBeGreaterThanOrEqual(0.85);
    expect(Math.min(...result.heldOutIous)).toBeGreaterThanOrEqual(0.9);
    expect(result.dimensions.height).toBeCloseTo(capture.size.height, 4);
    // The product is convex, with walls steeper than the cameras look down, so its hull is the product: with
    // the table found and cut, width and depth come out within 5 % (width is the footprint's longer side).
    for (const error of errors) expect(Math.abs(error)).toBeLessThan(0.05);
  });
});
