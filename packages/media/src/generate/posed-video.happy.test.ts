import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { colmapAvailable, recoverCamerasWithColmap } from '../poses/colmap-runner.js';
import { extractFrames } from '../video/video-frames.js';
import { DEFAULT_VIDEO_TOOLS, runProcess } from '../video/video-probe.js';
import { resolveHints } from './generator.js';
import { carveAtTrueHeight, handheldCameras, renderSyntheticCapture, walkaroundCameras, type FixtureCamera, type SyntheticShot } from './posed-fixtures.test-support.js';
import { prepareViews } from './prepared-view.js';

// The video version of posed-synthetic.happy.test.ts: the same textured product on its textured table, filmed
// as a handheld walk round it (10 s at 12 fps, 640 × 480, distance, elevation and roll drifting, a little
// shake), encoded to H.264, then the production path for a `walkaround` video: frame selection, COLMAP with
// sequential matching, posed carving with the height given.
//
// Masks: like the photo test, every frame is cut out exactly by the renderer (a second pass with the table
// hidden), so this measures frame selection, posing and carving, not the cut-out. Frame selection returns
// decoded JPEGs without their times, so each kept frame is matched back to the rendered frame it came from
// (the one it differs least from) and takes that frame's mask.
//
// Held-out views: three stills from cameras off the path (higher and farther than any frame of the walk).
// As in the photo test, they get their cameras from COLMAP with the kept frames (each is slotted into the
// sequence beside the kept frame nearest to it round the product, so sequential matching pairs it with its
// neighbours) and are kept out of carving: the IoU on them is the model against views it never carved from.

const hasColmap = await colmapAvailable();
const hasFfmpeg = await runProcess(DEFAULT_VIDEO_TOOLS.ffmpeg, ['-version'], 10_000).then((r) => r.code === 0, () => false);
const CHROMIUM = process.env.PLINTH_CHROMIUM_PATH || '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const FPS = 12;
const SECONDS = 10;

let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Small grey thumbnail, for telling which rendered frame a decoded one is. */
async function thumb(jpeg: Buffer): Promise<Buffer> {
  return sharp(jpeg).greyscale().resize(64, 48, { fit: 'fill' }).raw().toBuffer();
}

function difference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

const azimuth = (c: FixtureCamera) => Math.atan2(c.x, c.z);
const angleBetween = (a: number, b: number) => Math.abs(((((a - b) % (2 * Math.PI)) + 3 * Math.PI) % (2 * Math.PI)) - Math.PI);

describe.skipIf(!hasColmap || !hasFfmpeg || !hasChromium)(
  `posed generation from a handheld synthetic walk-around video (colmap ${hasColmap}, ffmpeg ${hasFfmpeg}, chromium ${hasChromium})`,
  () => {
    it('keeps 24–60 frames, recovers their cameras, and carves one piece at the true size that agrees with views off the path', { timeout: 400_000 }, async () => {
      const path = walkaroundCameras(FPS * SECONDS);
      const offPath = handheldCameras(3, 11, { distance: [0.3, 0.32], elevationDeg: [38, 44], aimY: 0.05 });
      const capture = await renderSyntheticCapture({ chromiumPath: CHROMIUM, count: 0, width: 640, height: 480, cameras: [...path, ...offPath] });
      const frames = capture.shots.slice(0, path.length);
      const stills = capture.shots.slice(path.length);

      dir = await mkdtemp(join(tmpdir(), 'plinth-walk-video-'));
      for (const [i, shot] of frames.entries()) await writeFile(join(dir, `f${String(i).padStart(4, '0')}.jpg`), shot.image);
      const video = join(dir, 'walk.mp4');
      const encoded = await runProcess(
        DEFAULT_VIDEO_TOOLS.ffmpeg,
        ['-v', 'error', '-y', '-framerate', String(FPS), '-i', join(dir, 'f%04d.jpg'), '-c:v', 'libx264', '-preset', 'fast', '-crf', '20', '-pix_fmt', 'yuv420p', video],
        120_000,
      );
      expect(encoded.code, encoded.stderr).toBe(0);

      const kept = await extractFrames(video, { capture: 'walkaround' });
      expect(kept.length).toBeGreaterThanOrEqual(24);
      expect(kept.length).toBeLessThanOrEqual(60);

      // Which rendered frame each kept one is: its camera and its exact mask.
      const rendered = await Promise.all(frames.map((f) => thumb(f.image)));
      const source: number[] = [];
      for (const frame of kept) {
        const t = await thumb(frame);
        const distances = rendered.map((r) => difference(r, t));
        source.push(distances.indexOf(Math.min(...distances)));
      }
      expect(source).toEqual([...source].sort((a, b) => a - b));

      // The sequence COLMAP sees: the kept frames in time order, each off-path still after the nearest of them.
      const sequence: { shot: SyntheticShot; still: boolean }[] = [];
      for (const [k, frame] of kept.entries()) {
        sequence.push({ shot: { image: frame, mask: frames[source[k]].mask }, still: false });
        for (const [s, cam] of offPath.entries()) {
          const nearest = source.reduce((best, f, j) => (angleBetween(azimuth(path[f]), azimuth(cam)) < angleBetween(azimuth(path[source[best]]), azimuth(cam)) ? j : best), 0);
          if (nearest === k) sequence.push({ shot: stills[s], still: true });
        }
      }
      const heldOut = new Set(sequence.flatMap((v, i) => (v.still ? [i] : [])));
      expect(heldOut.size).toBe(3);

      const views = sequence.map((v) => ({ image: v.shot.image, mask: v.shot.mask }));
      const recovery = await recoverCamerasWithColmap({ images: views.map((v) => v.image) }, { matcher: 'sequential' });
      const registered = new Set(recovery.cameras.map((c) => c.view));
      const framesRegistered = sequence.filter((v, i) => !v.still && registered.has(i)).length;
      const prepared = await prepareViews(views, resolveHints({}));
      const { result, errors } = await carveAtTrueHeight(prepared, recovery, capture.size, heldOut);
      console.log(
        'synthetic walk-around video',
        { kept: kept.length, source, framesRegistered, stillsRegistered: [...heldOut].filter((i) => registered.has(i)).length },
        result.dimensions,
        errors,
        result.quality,
        result.heldOutIous,
        recovery.timings,
      );
      expect(framesRegistered).toBeGreaterThanOrEqual(0.8 * kept.length);
      expect(result.quality.largest_piece).toBeGreaterThanOrEqual(0.95);
      // All three off-path stills placed, and the model agrees with each of them.
      expect(result.heldOutIous).toHaveLength(3);
      expect(Math.min(...result.heldOutIous)).toBeGreaterThanOrEqual(0.9);
      expect(result.dimensions.height).toBeCloseTo(capture.size.height, 4);
      for (const error of errors) expect(Math.abs(error)).toBeLessThan(0.05);
    });
  },
);
