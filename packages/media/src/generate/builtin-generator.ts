import { setImmediate as nextTick } from 'node:timers/promises';
import { MediaError } from '../errors.js';
import { MIN_MAT_VIEWS, recoverCamerasFromMat } from '../mat/mat-poses.js';
import { recoverCamerasWithColmap } from '../poses/colmap-runner.js';
import { refineElevatedScales } from './elevation-refine.js';
import { checkAborted, resolveHints, type GenerateHints, type GenerateResult, type Generator, type GeneratorView, type ProgressFn, type ResolvedHints } from './generator.js';
import { heldOutAgreement, requireCoverage, requireEnoughPlaced } from './heldout-gate.js';
import { finishHull, type Dimensions } from './hull-model.js';
import type { QualityPoseSource } from './model-quality.js';
import { carvePosedHull, posedSamplers } from './posed-carve.js';
import { generatePosedHull, POSED_RESOLUTION, type PosedOptions } from './posed-generator.js';
import { directionSpreadDeg, prepareViews, type PreparedView } from './prepared-view.js';
import { buildReliefCard } from './relief-card.js';
import { calibrateTurntable, hullBounds, turntablePosedCameras } from './turntable-camera.js';

// The built-in generator needs no GPU and no service. With recovered cameras (the capture mat or COLMAP)
// it carves with them (posed-generator.ts); on a turntable the turntable assumption gives the cameras; both
// then share the surface, the check against the photos, the texture and the placement (hull-model.ts).
// With too few angles to carve, a relief card. docs/generation.md describes the assumptions and their limits.

type Progress = (percent: number, step: string) => Promise<void>;

/** Fewer usable views than this cannot bound depth: they make a relief card. */
const MIN_HULL_VIEWS = 3;
/** Views must look from directions at least this far apart (mod 180°) to carve depth. */
const MIN_DIRECTION_SPREAD_DEG = 30;

export function createBuiltinGenerator(): Generator {
  return {
    name: 'builtin',
    async generate(views: GeneratorView[], hints: GenerateHints, onProgress?: ProgressFn, signal?: AbortSignal): Promise<GenerateResult> {
      const resolved = resolveHints(hints);
      const progress = async (percent: number, step: string) => {
        checkAborted(signal);
        await onProgress?.(percent, step);
      };
      await progress(0, 'preparing_views');
      const usable = await prepareViews(views, resolved);
      if (usable.length === 0) {
        throw new MediaError('no_usable_views', 'None of the views shows the product: every mask is empty or unreadable');
      }
      checkAborted(signal);
      const dimensions = hints.dimensions ?? (resolved.heightMetres ? { height: resolved.heightMetres } : null);
      if (hints.capture === 'auto' || hints.capture === 'walkaround') {
        const options = { triangleBudget: resolved.triangleBudget, textureSize: resolved.textureSize, dimensions };
        return generateFromRecoveredCameras(views, usable, hints, options, progress, signal);
      }
      // Per-view angles are the caller's slots (equal steps); only angles the shop stated count as given.
      const poseSource: QualityPoseSource = resolved.azimuthsDeg ? 'given' : 'assumed';
      if (usable.length < MIN_HULL_VIEWS || directionSpreadDeg(usable) < MIN_DIRECTION_SPREAD_DEG) {
        await progress(30, 'building_card');
        const back = backView(usable);
        const card = await buildReliefCard(usable[0], back, resolved);
        await progress(100, 'done');
        return {
          ...card,
          // A card is its photo on a slab: there is no depth to check against the other views.
          quality: {
            method: 'relief_card',
            pose_source: poseSource,
            views_used: back ? 2 : 1,
            views_total: views.length,
            coverage: null,
            heldout_iou: null,
            silhouette_iou: null,
            stereo_coverage: null,
            largest_piece: null,
            scale_source: resolved.heightMetres ? 'given' : 'assumed',
          },
        };
      }
      const { heldOutIous: _, ...model } = await generateTurntableHull(usable, views.length, resolved, dimensions, poseSource, progress);
      await progress(100, 'done');
      return model;
    },
  };
}

/**
 * Cameras recovered from the photos themselves (the capture mat when at least 3 photos show it, else
 * COLMAP), then posed carving and its gate. Photos whose cut-out is unusable are not offered (they count as
 * not registered).
 */
async function generateFromRecoveredCameras(
  views: GeneratorView[],
  usable: PreparedView[],
  hints: GenerateHints,
  options: PosedOptions,
  progress: Progress,
  signal: AbortSignal | undefined,
): Promise<GenerateResult> {
  await progress(2, 'finding_cameras');
  const kept = new Set(usable.map((v) => v.index));
  const stepShare = { features: 10, matching: 25, mapping: 30 } as const;
  const skip = new Set(views.map((_, i) => i).filter((i) => !kept.has(i)));
  const fromMat = await recoverCamerasFromMat({ images: views.map((v) => v.image), skip });
  checkAborted(signal);
  const recovery = fromMat.cameras.length >= MIN_MAT_VIEWS ? fromMat : await recoverCamerasWithColmap(
    { images: views.map((v) => v.image), skip },
    {
      colmapPath: hints.colmapPath,
      matcher: hints.sequence ? 'sequential' : 'exhaustive',
      timeoutMs: hints.colmapTimeoutMs,
      signal,
      onStep: (step) => progress(stepShare[step], 'finding_cameras'),
    },
  );
  return generatePosedHull(usable, recovery, options, (percent, step) => progress(30 + percent * 0.7, step));
}

/** The view that looks at the first one's back (within 45° of opposite), if any. */
function backView(views: readonly PreparedView[]): PreparedView | null {
  let best: PreparedView | null = null;
  let bestOff = 45;
  for (const v of views.slice(1)) {
    const off = Math.abs(((((v.azimuthDeg - views[0].azimuthDeg - 180) % 360) + 540) % 360) - 180);
    if (off <= bestOff) {
      best = v;
      bestOff = off;
    }
  }
  return best;
}

/**
 * The turntable assumption (equal steps, or the given angles, at one elevation) gives each photo an
 * orthographic camera, calibrated against the product's height; then the same carving and checks as
 * recovered cameras, so a turntable model that disagrees with its own photos is refused too.
 */
async function generateTurntableHull(
  views: PreparedView[],
  viewsTotal: number,
  hints: ResolvedHints,
  dimensions: Dimensions | null,
  poseSource: QualityPoseSource,
  progress: Progress,
) {
  // Carved at the real height when known; otherwise at 1 m and scaled at the end.
  const carveHeight = hints.heightMetres ?? 1;
  // The calibration stands the product on y = 0 with its top at carveHeight.
  const clipY: [number, number] = [0, carveHeight];
  let cams = calibrateTurntable(views, carveHeight);
  if (views.some((v) => v.elevationDeg !== 0)) {
    await progress(5, 'carving');
    cams = await refineElevatedScales(views, cams, clipY, () => progress(5, 'carving'));
  }
  const details = { views_total: viewsTotal, views_usable: views.length };
  // A turntable's views are all placed (by the given or assumed angles); they are judged like recovered ones.
  requireEnoughPlaced(views.length, views.length, details);
  const bounds = hullBounds(views, cams, clipY);
  if (!bounds) throw new MediaError('inconsistent_views', 'The views do not bound the product from enough directions', details);

  await progress(10, 'carving');
  const posed = turntablePosedCameras(views, cams);
  const centre = [0, 1, 2].map((a) => (bounds.min[a] + bounds.max[a]) / 2);
  const coverage = requireCoverage(posed, centre, details);
  const grid = await carvePosedHull(posedSamplers(views, posed), bounds, {
    resolution: POSED_RESOLUTION,
    floorY: clipY[0],
    ceilingY: clipY[1],
    // Yielding between slabs keeps a server sharing this thread responsive.
    onSlab: async (done, total) => {
      if (done % 8 === 0) {
        await nextTick();
        await progress(10 + Math.round((45 * done) / total), 'carving');
      }
    },
  });
  await progress(55, 'checking');
  const heldOut = await heldOutAgreement({ views, cams: posed, box: bounds, floorY: clipY[0], ceilingY: clipY[1], centre });
  return finishHull(
    {
      grid,
      gate: { coverage, heldOut },
      views,
      cams: posed,
      triangleBudget: hints.triangleBudget,
      textureSize: hints.textureSize,
      dimensions,
      // The first photo is the front: the model keeps facing it.
      alignFootprint: false,
      origin: { method: 'turntable_hull', pose_source: poseSource, views_total: viewsTotal },
      details,
    },
    progress,
  );
}
