import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { capturesDir, templeCameras, templeMask } from '../../poses/poses.test-support.js';
import { renderTurntable } from '../../render/renders.js';
import { resolveHints } from '../generator.js';
import { generatePosedHull } from '../posed-generator.js';
import { prepareViews } from '../prepared-view.js';
import { compareSurfaces, givenRecovery, renderConcaveCapture, samplePoints, type ConcaveCapture, type ConcaveProduct } from './stereo-fixtures.test-support.js';
import { runStereoStage, segmentHits } from './stereo-test-helpers.test-support.js';

// The stereo bench (bench/stereo.mjs bundles this file): per set, stereo's coverage, its Chamfer distance and
// F-score against the truth (synthetic sets; the temple against its calibrated hull), the stage's time and
// the process's peak memory, and a contact sheet of the generated model before (hull) and after stereo.

export interface BenchOptions {
  chromiumPath: string;
  outDir: string;
  sets: string[];
}

function rssPeak(): { stop: () => number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  return { stop: () => (clearInterval(timer), Math.max(peak, process.memoryUsage().rss) / 2 ** 20) };
}

async function sheet(glbs: Buffer[], file: string, chromiumPath: string): Promise<void> {
  const size = 240;
  const rows = await Promise.all(glbs.map((glb) => renderTurntable(glb, { chromiumPath, views: 6, size, elevationDeg: 30 })));
  const tiles = rows.flatMap((shots, r) => shots.map((input, i) => ({ input, left: i * size, top: r * size })));
  await sharp({ create: { width: 6 * size, height: rows.length * size, channels: 4, background: '#ffffff' } }).composite(tiles).png().toFile(file);
}

async function generateBoth(capture: Pick<ConcaveCapture, 'shots'>, recovery: ReturnType<typeof givenRecovery>, height: number) {
  const prepared = await prepareViews(
    capture.shots.map((s) => ({ image: s.image, mask: s.mask })),
    resolveHints({}),
  );
  const options = { triangleBudget: 20_000, textureSize: 1024, dimensions: { height } };
  const hull = await generatePosedHull(prepared, recovery, { ...options, stereo: false }, async () => undefined);
  const started = Date.now();
  const stereo = await generatePosedHull(prepared, recovery, options, async () => undefined);
  return { hull, stereo, seconds: (Date.now() - started) / 1000 };
}

const HEIGHTS: Record<ConcaveProduct, number> = { mug: 0.09, bowl: 0.05, chair: 0.13 };

/** Segments through the product's openings that must not touch it: into the mug's cup and through its handle, into the bowl, under the chair's seat. */
const OPENINGS: Record<ConcaveProduct, [number[], number[]][]> = {
  mug: [
    [[0.001, 0.2, 0.002], [0.001, 0.012, 0.002]],
    [[0.052, 0.045, -0.1], [0.052, 0.045, 0.1]],
  ],
  bowl: [[[0.001, 0.2, 0.002], [0.001, 0.012, 0.002]]],
  chair: [[[-0.1, 0.03, 0.001], [0.1, 0.03, 0.001]]],
};

export async function benchStereo(opts: BenchOptions): Promise<void> {
  const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
  for (const set of opts.sets) {
    const memory = rssPeak();
    if (set === 'temple') {
      const dir = capturesDir();
      if (!dir) {
        memory.stop();
        console.log('temple: skipped, ../shared/data/captures is absent');
        continue;
      }
      const truth = templeCameras(dir);
      const shots = await Promise.all(
        truth.names.map(async (name) => {
          const image = readFileSync(join(dir, 'temple', name));
          return { image, mask: await templeMask(image) };
        }),
      );
      const capture: ConcaveCapture = { shots, cameras: truth.cameras, truth: { positions: new Float32Array(0), indices: new Uint32Array(0) } };
      const stage = await runStereoStage(capture, { truth: false });
      // No true surface: stereo against the hull from the calibrated cameras, which it may only cut into.
      const vsHull = compareSurfaces(samplePoints(stage.stereoMesh, 30_000, 3), samplePoints(stage.hullMesh, 30_000, 5), 0.02 * stage.diagonal);
      const { hull, stereo, seconds } = await generateBoth(capture, { cameras: truth.cameras, viewsTotal: 16, source: 'given', timings: {} }, 0.16);
      await sheet([hull.glb, stereo.glb], join(opts.outDir, 'temple-before-after.png'), opts.chromiumPath);
      console.log(JSON.stringify({ set, views: shots.length, coverage: round(stage.coverage), depth_share: round(stage.stereo.depthShare), f_vs_hull_2pct: round(vsHull.fscore), stereo_s: stage.stereo.seconds, generate_s: seconds, quality: stereo.quality, dimensions: stereo.dimensions, peak_rss_mb: Math.round(memory.stop()) }));
      continue;
    }
    const [product, count, width, height] = set.split('-') as [ConcaveProduct, string?, string?, string?];
    const capture = await renderConcaveCapture({ chromiumPath: opts.chromiumPath, product, count: Number(count ?? 24), width: Number(width ?? 640), height: Number(height ?? 480) });
    const stage = await runStereoStage(capture);
    const { hull, stereo, seconds } = await generateBoth(capture, givenRecovery(capture), HEIGHTS[product]);
    await sheet([hull.glb, stereo.glb], join(opts.outDir, `${set}-before-after.png`), opts.chromiumPath);
    const s = stage.scores;
    console.log(
      JSON.stringify({
        set,
        coverage: round(stage.coverage),
        depth_share: round(stage.stereo.depthShare),
        hull: { chamfer_mm: round(s.hull.chamfer * 1000, 2), f_1pct: round(s.hull.fscore) },
        stereo: { chamfer_mm: round(s.stereo.chamfer * 1000, 2), f_1pct: round(s.stereo.fscore) },
        stereo_s: stage.stereo.seconds,
        generate_s: seconds,
        open: { hull: OPENINGS[product].map((o) => !segmentHits(stage.hullMesh, ...o)), stereo: OPENINGS[product].map((o) => !segmentHits(stage.stereoMesh, ...o)) },
        method: stereo.quality.method,
        stereo_coverage: stereo.quality.stereo_coverage,
        peak_rss_mb: Math.round(memory.stop()),
      }),
    );
  }
}
