import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { colmapAvailable, recoverCamerasWithColmap } from '../poses/colmap-runner.js';
import { capturesDir, templeCameras, templeMask } from '../poses/poses.test-support.js';
import { resolveHints } from './generator.js';
import { generatePosedHull } from './posed-generator.js';
import { prepareViews } from './prepared-view.js';

const dir = capturesDir();

const hasColmap = await colmapAvailable();

async function templeViews() {
  const truth = templeCameras(dir!);
  const views = await Promise.all(
    truth.names.map(async (name) => {
      const image = readFileSync(join(dir!, 'temple', name));
      return { image, mask: await templeMask(image) };
    }),
  );
  return { truth, views };
}

describe.skipIf(!dir || !hasColmap)('posed carving on the temple with cameras recovered by COLMAP', () => {
  it('is a temple at its real size, one piece, agreeing with the photos', { timeout: 600_000 }, async () => {
    const { views } = await templeViews();
    const recovery = await recoverCamerasWithColmap({ images: views.map((v) => v.image) }, { matcher: 'exhaustive' });
    const prepared = await prepareViews(views, resolveHints({}));
    const result = await generatePosedHull(prepared, recovery, { triangleBudget: 20_000, textureSize: 1024, dimensions: { height: 0.16 } }, async () => undefined).catch(
      (error) => {
        console.log('temple (COLMAP) failed', JSON.stringify(error.details));
        throw error;
      },
    );
    console.log('temple (COLMAP cameras)', result.dimensions, result.quality);
    expect(result.quality).toMatchObject({ pose_source: 'sfm', views_total: 16 });
    expect(result.quality.largest_piece).toBeGreaterThanOrEqual(0.95);
    expect(result.quality.silhouette_iou!.median).toBeGreaterThanOrEqual(0.85);
    expect(Math.abs(result.dimensions.width / 0.102 - 1)).toBeLessThan(0.1);
    expect(Math.abs(result.dimensions.depth / 0.075 - 1)).toBeLessThan(0.1);
  });
});

describe.skipIf(!dir)('posed carving on the temple (real photos)', () => {
  it('with the calibrated cameras and its height, comes out at its real size, one piece, agreeing with the photos', { timeout: 600_000 }, async () => {
    const truth = templeCameras(dir!);
    const views = await Promise.all(
      truth.names.map(async (name) => {
        const image = readFileSync(join(dir!, 'temple', name));
        return { image, mask: await templeMask(image) };
      }),
    );
    const prepared = await prepareViews(views, resolveHints({}));
    const steps: string[] = [];
    const result = await generatePosedHull(
      prepared,
      { cameras: truth.cameras, viewsTotal: 16, source: 'given', timings: {} },
      { triangleBudget: 20_000, textureSize: 1024, dimensions: { height: 0.16 } },
      async (_p, step) => {
        if (steps.at(-1) !== step) steps.push(step);
      },
    );
    console.log('temple (given cameras)', result.dimensions, result.quality);
    expect(steps[0]).toBe('carving');
    expect(steps.at(-1)).toBe('storing_model');
    // The temple's stone is textured: stereo measures most of it and opens the gaps between its columns.
    expect(result.quality).toMatchObject({ method: 'posed_stereo', pose_source: 'given', views_used: 16, views_total: 16, scale_source: 'given' });
    expect(result.quality.stereo_coverage).toBeGreaterThan(0.5);
    expect(steps).toEqual(['carving', 'checking', 'matching', 'meshing', 'texturing', 'storing_model']);
    expect(result.quality.largest_piece).toBeGreaterThanOrEqual(0.95);
    expect(result.quality.silhouette_iou!.median).toBeGreaterThanOrEqual(0.85);
    expect(result.dimensions.height).toBeCloseTo(0.16, 3);
    expect(result.dimensions.width).toBeGreaterThan(0.102 * 0.9);
    expect(result.dimensions.width).toBeLessThan(0.102 * 1.1);
    expect(result.dimensions.depth).toBeGreaterThan(0.075 * 0.9);
    expect(result.dimensions.depth).toBeLessThan(0.075 * 1.1);
  });
});
