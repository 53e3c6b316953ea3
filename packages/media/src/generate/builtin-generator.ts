import { MediaError } from '../errors.js';
import { setImmediate as nextTick } from 'node:timers/promises';
import {
  checkAborted,
  DEFAULT_TALLEST_SIDE_METRES,
  resolveHints,
  type GenerateHints,
  type GenerateResult,
  type Generator,
  type GeneratorView,
  type ProgressFn,
  type ResolvedHints,
} from './generator.js';
import { writePartsGlb } from './glb-writer.js';
import { textureHull } from './hull-texture.js';
import { marchingCubes } from './marching-cubes.js';
import { simplifyToBudget } from './mesh-simplify.js';
import { refineElevatedScales } from './elevation-refine.js';
import { directionSpreadDeg, prepareViews, type PreparedView } from './prepared-view.js';
import { buildReliefCard } from './relief-card.js';
import { calibrateTurntable, hullBounds } from './turntable-camera.js';
import { carveVisualHull } from './visual-hull.js';
import { recoverCamerasWithColmap } from '../poses/colmap-runner.js';
import { MIN_MAT_VIEWS, recoverCamerasFromMat } from '../mat/mat-poses.js';
import { generatePosedHull } from './posed-generator.js';

// The built-in generator needs no GPU and no service: silhouette carving (visual hull)
// for turntable photo sets, and a relief card when there are too few angles to carve.
// docs/generation.md describes the assumptions and their limits.

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
      if (hints.capture === 'auto' || hints.capture === 'walkaround') return generateFromRecoveredCameras(views, usable, hints, resolved, progress, signal);
      const result = await generateTurntable(usable, resolved, progress);
      return {
        ...result,
        quality: {
          method: result.method === 'relief_card' ? 'relief_card' : 'turntable_hull',
          // Per-view angles are the caller's slots (equal steps); only angles the shop stated count as given.
          pose_source: resolved.azimuthsDeg ? 'given' : 'assumed',
          views_used: usable.length,
          views_total: views.length,
          // Orthographic turntable views are not checked against the photos; only posed models are.
          silhouette_iou: null,
          largest_piece: null,
          scale_source: resolved.heightMetres ? 'given' : 'assumed',
        },
      };
    },
  };
}

/** The turntable assumption: equal steps (or the given angles) at one elevation; a relief card when too few. */
async function generateTurntable(
  usable: PreparedView[],
  resolved: ResolvedHints,
  progress: (percent: number, step: string) => Promise<void>,
): Promise<GenerateResult> {
  if (usable.length < MIN_HULL_VIEWS || directionSpreadDeg(usable) < MIN_DIRECTION_SPREAD_DEG) {
    await progress(30, 'building_card');
    const card = await buildReliefCard(usable[0], backView(usable), resolved);
    await progress(100, 'done');
    return card;
  }
  return generateHull(usable, resolved, progress);
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
  resolved: ResolvedHints,
  progress: (percent: number, step: string) => Promise<void>,
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
  const dimensions = hints.dimensions ?? (resolved.heightMetres ? { height: resolved.heightMetres } : null);
  return generatePosedHull(usable, recovery, { triangleBudget: resolved.triangleBudget, textureSize: resolved.textureSize, dimensions }, (percent, step) =>
    progress(30 + percent * 0.7, step),
  );
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

async function generateHull(
  views: PreparedView[],
  hints: ResolvedHints,
  progress: (percent: number, step: string) => Promise<void>,
): Promise<GenerateResult> {
  // Carved at the real height when known; otherwise at 1 m and scaled at the end.
  const carveHeight = hints.heightMetres ?? 1;
  // The calibration stands the product on y = 0 with its top at carveHeight.
  const clipY: [number, number] = [0, carveHeight];
  let cams = calibrateTurntable(views, carveHeight);
  if (views.some((v) => v.elevationDeg !== 0)) {
    await progress(5, 'calibrating');
    cams = await refineElevatedScales(views, cams, clipY, () => progress(5, 'calibrating'));
  }
  const bounds = hullBounds(views, cams, clipY);
  if (!bounds) throw new MediaError('inconsistent_views', 'The views do not bound the product from enough directions');

  await progress(10, 'carving');
  const grid = await carveVisualHull(views, cams, bounds, {
    clipY,
    // Yielding between slabs keeps a server sharing this thread responsive.
    onSlab: async (done, total) => {
      if (done % 8 === 0) {
        await nextTick();
        await progress(10 + Math.round((40 * done) / total), 'carving');
      }
    },
  });
  await progress(50, 'extracting_surface');
  const surface = marchingCubes(grid);
  if (surface.indices.length === 0) {
    throw new MediaError('inconsistent_views', 'The silhouettes leave nothing in common; check the view angles');
  }
  await progress(60, 'simplifying');
  const mesh = await simplifyToBudget(surface, hints.triangleBudget);
  if (mesh.indices.length === 0) throw new MediaError('inconsistent_views', 'The carved shape vanished when simplified');

  await progress(70, 'texturing');
  // UVs come from projecting the carve-space positions, so texture before rescaling.
  const textured = await textureHull(mesh, views, cams, hints.textureSize);
  await progress(90, 'writing_model');
  const dimensions = placeOnFloor(textured.mesh.positions, hints);
  const glb = await writePartsGlb('Product', [
    {
      name: 'Product',
      ...textured.mesh,
      material: { name: 'Product', texture: { image: textured.texture, mimeType: 'image/jpeg' } },
    },
  ]);
  await progress(100, 'done');
  return { glb, dimensions, triangles: textured.mesh.indices.length / 3, method: 'visual_hull' };
}

/**
 * Scales in place to the real height (or the default tallest side), centres the
 * footprint on the origin and stands the base on y = 0; returns the final size.
 */
function placeOnFloor(positions: Float32Array, hints: ResolvedHints): GenerateResult['dimensions'] {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i++) {
    const a = i % 3;
    if (positions[i] < min[a]) min[a] = positions[i];
    if (positions[i] > max[a]) max[a] = positions[i];
  }
  const size = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
  // Marching cubes lands within a fraction of a voxel of the silhouettes' height;
  // the final scale makes the stated height exact.
  const scale = hints.heightMetres ? hints.heightMetres / size[1] : DEFAULT_TALLEST_SIDE_METRES / Math.max(...size);
  const shift = [(min[0] + max[0]) / 2, min[1], (min[2] + max[2]) / 2];
  for (let i = 0; i < positions.length; i++) positions[i] = (positions[i] - shift[i % 3]) * scale;
  return { width: size[0] * scale, height: size[1] * scale, depth: size[2] * scale };
}
