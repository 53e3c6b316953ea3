import { mkdir, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { cameraCentre } from '../poses/camera.js';
import { createBuiltinGenerator } from '../generate/builtin-generator.js';
import { resolveHints } from '../generate/generator.js';
import { handheldCameras, renderSyntheticCapture } from '../generate/posed-fixtures.test-support.js';
import { generatePosedHull } from '../generate/posed-generator.js';
import { prepareViews } from '../generate/prepared-view.js';
import { renderTurntable } from '../render/renders.js';
import { recoverCamerasFromMat } from './mat-poses.js';
import { MAT_PATH, MAT_SCENE as SCENE } from './mat-scene.test-support.js';

const CHROMIUM = '/usr/bin/chromium';
const COUNT = 16;
/** A phone's photos are larger still; this is enough to read the mat from a low angle. */
const [WIDTH, HEIGHT] = [1280, 960];
/** Set PLINTH_LOOK_DIR to keep one photo and the model's renders there, to look at. */
const LOOK_DIR = process.env.PLINTH_LOOK_DIR;

describe('a textureless product on the capture mat (handheld photos, cameras unknown)', () => {
  it('poses every photo from the mat, and the engine makes one piece at the true size without being told it', { timeout: 600_000 }, async () => {
    const capture = await renderSyntheticCapture({ chromiumPath: CHROMIUM, count: COUNT, width: WIDTH, height: HEIGHT, mat: SCENE, path: MAT_PATH });
    const views = capture.shots.map((s) => ({ image: s.image, mask: s.mask }));
    if (LOOK_DIR) {
      await mkdir(LOOK_DIR, { recursive: true });
      await writeFile(`${LOOK_DIR}/mat-photo-0.jpg`, views[0].image);
    }

    const recovery = await recoverCamerasFromMat({ images: views.map((v) => v.image) });
    expect(recovery.cameras.length).toBeGreaterThanOrEqual(COUNT - 1);
    // The mat's frame is the scene's: each camera sits where the photo was taken from.
    const truth = handheldCameras(COUNT, 3, MAT_PATH);
    const errorsMm = recovery.cameras.map((cam) => {
      const c = cameraCentre(cam);
      const t = truth[cam.view];
      return Math.hypot(c[0] - t.x, c[1] - t.y, c[2] - t.z) * 1000;
    });
    const fovDeg = (2 * Math.atan(HEIGHT / 2 / recovery.cameras[0].fy) * 180) / Math.PI;
    const unposed = truth.map((_, view) => view).filter((view) => !recovery.cameras.some((c) => c.view === view));
    console.log('mat poses', recovery.cameras.length, 'unposed', unposed.map((v) => `${v} (${((Math.asin((truth[v].y - MAT_PATH.aimY - 0.01) / Math.hypot(truth[v].x, truth[v].y - MAT_PATH.aimY - 0.01, truth[v].z)) * 180) / Math.PI).toFixed(0)}°)`), 'centre error mm', errorsMm.map((e) => e.toFixed(1)).join(' '), 'fov', fovDeg.toFixed(2), recovery.timings);
    expect(Math.max(...errorsMm)).toBeLessThan(5);
    expect(fovDeg).toBeCloseTo(45, 0);

    // Through the engine: no dimensions, no angles.
    const started = performance.now();
    const result = await createBuiltinGenerator().generate(views, { capture: 'auto', triangleBudget: 20_000 });
    const seconds = (performance.now() - started) / 1000;
    const q = result.quality!;
    const sizeError = {
      width: result.dimensions.width / capture.size.width - 1,
      height: result.dimensions.height / capture.size.height - 1,
      depth: result.dimensions.depth / capture.size.depth - 1,
    };
    console.log('mat model', result.dimensions, q, 'size error', sizeError, 'seconds', seconds.toFixed(1));
    expect(q.pose_source).toBe('mat');
    // A plain product gives stereo too little to match: the model is the hull, and says so.
    expect(q.method).toBe('posed_hull');
    expect(q.scale_source).toBe('mat');
    expect(q.largest_piece).toBeGreaterThanOrEqual(0.95);
    for (const e of Object.values(sizeError)) expect(Math.abs(e)).toBeLessThan(0.05);

    // Photos the carving never saw agree with the model.
    const posed = recovery.cameras.map((c) => c.view);
    const heldOut = new Set([posed[2], posed[7], posed[12]]);
    const prepared = await prepareViews(views, resolveHints({}));
    const judged = await generatePosedHull(prepared, recovery, { triangleBudget: 20_000, textureSize: 512, heldOut }, async () => undefined);
    console.log('mat held-out IoU', judged.heldOutIous, judged.quality);
    expect(judged.heldOutIous).toHaveLength(heldOut.size);
    expect(Math.min(...judged.heldOutIous)).toBeGreaterThanOrEqual(0.9);
    expect(judged.quality.largest_piece).toBeGreaterThanOrEqual(0.95);

    if (LOOK_DIR) {
      const frames = await renderTurntable(result.glb, { chromiumPath: CHROMIUM, views: 8, size: 384, elevationDeg: 20 });
      await Promise.all(frames.map((png, i) => writeFile(`${LOOK_DIR}/mat-model-${i}.png`, png)));
    }
  });
});
