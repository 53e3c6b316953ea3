import { setImmediate as nextTick } from 'node:timers/promises';
import { MediaError } from '../errors.js';
import type { CameraRecovery, PosedCamera } from '../poses/camera.js';
import { round3 } from './model-quality.js';
import { finishHull, type Dimensions, type HullModel } from './hull-model.js';
import { carvePosedHull, fillSmallHoles, insideBox, posedSamplers, type Box3 } from './posed-carve.js';
import { heldOutAgreement, MIN_HELDOUT_IOU, misplacedViews, requireCoverage, requireEnoughPlaced } from './heldout-gate.js';
import { directionToCameraFrame, findFloor, modelFrame } from './posed-frame.js';
import type { PreparedView } from './prepared-view.js';
import { marchingCubes, type ScalarGrid } from './marching-cubes.js';
import { carveWithStereo, stereoCoverage } from './stereo/stereo-surface.js';
import { groundInModelFrame } from '../mat/mat-ground.js';
import { masksWithoutMat } from '../mat/mat-mask.js';
import { openSeenThrough, withCleared } from './see-through.js';

// The built-in generator for captures with real cameras (recovered by structure from motion or the mat, or
// given): level the cameras into the product's frame, carve with their perspective projections, open what
// the hull cannot see with multi-view stereo (stereo/), then the steps every carved model shares
// (hull-model.ts: surface, check against every photo, texture, scale).

const COARSE_RESOLUTION = 48;
export const POSED_RESOLUTION = 128;
/** Less of the surface measured by stereo than this, and the model is the hull's: stereo did not shape it. */
export const MIN_STEREO_COVERAGE = 0.35;

export interface PosedOptions {
  triangleBudget: number;
  textureSize: number;
  dimensions?: Dimensions | null;
  resolution?: number;
  /** Multi-view stereo beyond the hull (default on); off gives the visual hull alone. */
  stereo?: boolean;
  /** Photos placed by the cameras but kept out of carving, to measure the model on views it never saw. */
  heldOut?: ReadonlySet<number>;
}

export type PosedResult = HullModel;

type Progress = (percent: number, step: string) => Promise<void>;

/** A view touching the image border shows a cut-off product: its outline would carve away the rest. */
function usableForCarving(view: PreparedView): boolean {
  const { x0, y0, x1, y1 } = view.bbox;
  return x0 > 1 && y0 > 1 && x1 < view.imageWidth - 1 && y1 < view.imageHeight - 1;
}

/** `box` grown on every side by `share` of its largest side. */
function grownBox(box: Box3, share: number): Box3 {
  const pad = share * Math.max(...[0, 1, 2].map((a) => box.max[a] - box.min[a]));
  return { min: box.min.map((v) => v - pad) as Box3['min'], max: box.max.map((v) => v + pad) as Box3['max'] };
}

export async function generatePosedHull(
  prepared: readonly PreparedView[],
  recovery: CameraRecovery,
  options: PosedOptions,
  progress: Progress,
): Promise<PosedResult> {
  const byIndex = new Map(recovery.cameras.map((cam) => [cam.view, cam]));
  // On the capture mat the print is known: what agrees with it is not the product, whatever the cut-out kept.
  const cut = recovery.source === 'mat' ? await masksWithoutMat(prepared, byIndex) : prepared;
  const details: Record<string, unknown> = { views_total: recovery.viewsTotal };
  /** The placed photos less `misplaced` (photo indices), in the model frame the cameras give. */
  const place = (misplaced: ReadonlySet<number>) => {
    const registered = cut.filter((view) => byIndex.has(view.index) && !misplaced.has(view.index));
    const placed = registered.filter(usableForCarving);
    const views = placed.filter((v) => !options.heldOut?.has(v.index));
    Object.assign(details, { views_registered: registered.length, views_usable: views.length, views_misplaced: misplaced.size });
    // Counted and decided on the same photos: those whose cut-out found the product, and of them those placed.
    requireEnoughPlaced(registered.length, prepared.length, details);
    if (views.length < 3) throw new MediaError('inconsistent_views', `Only ${views.length} of the placed photos show the whole product (the others cut it off at the frame's edge)`, details);
    const placedCams = placed.map((v) => byIndex.get(v.index)!);
    const carving = (k: number) => !options.heldOut?.has(placed[k].index);
    return { placed, views, placedCams, carving, masks: views.map(fillSmallHoles), frame: modelFrame(placed, placedCams, recovery.points, recovery.floor?.normal) };
  };
  let { placed, views, placedCams, carving, masks, frame } = place(new Set());

  await progress(5, 'carving');
  const coarseCarve = async () => {
    const r = frame.radius;
    const samplers = posedSamplers(masks, frame.cameras.filter((_, k) => carving(k)));
    const grid = await carvePosedHull(samplers, { min: [-r, -r, -r], max: [r, r, r] }, { resolution: COARSE_RESOLUTION });
    return insideBox(grid) && { inside: insideBox(grid)!, step: grid.step, samplers };
  };
  let coarse = await coarseCarve();
  if (!coarse) throw new MediaError('inconsistent_views', 'The photos\u2019 outlines leave nothing in common', details);
  // A photo placed wrongly is worse than one left out: a photo whose outline disagrees with what all the others
  // carve is taken out (and no longer counts as placed) before anything is carved for the model.
  const around = grownBox(coarse.inside, 0.25);
  const wrong = await misplacedViews({ views: masks, cams: frame.cameras.filter((_, k) => carving(k)), box: around, centre: [0, 0, 0] });
  if (wrong.length > 0) {
    ({ placed, views, placedCams, carving, masks, frame } = place(new Set(wrong.map((k) => views[k].index))));
    coarse = await coarseCarve();
    if (!coarse) throw new MediaError('inconsistent_views', 'The photos\u2019 outlines leave nothing in common', details);
  }
  // With a textured table in view, its plane is a far better "up" than the photos' tilt, and it cuts off
  // the cone the hull grows under the product where no photo can see.
  // A measured floor (the capture mat) is the table itself, already level; otherwise look for one.
  const ground = groundInModelFrame(recovery, placedCams, frame.cameras);
  const floor = !ground && frame.points ? findFloor(frame.points, coarse.inside) : null;
  let floorY: number | null = ground?.floorY ?? null;
  if (ground) coarse.inside.min[1] = Math.max(coarse.inside.min[1], ground.floorY);
  if (floor) {
    frame = modelFrame(placed, placedCams, recovery.points, directionToCameraFrame(frame, floor.normal));
    floorY = floor.offset;
    coarse = await coarseCarve();
    if (!coarse) throw new MediaError('inconsistent_views', 'The photos\u2019 outlines leave nothing in common', details);
    coarse.inside.min[1] = Math.max(coarse.inside.min[1], floorY);
  }
  // The backdrop a cut-out kept between the product's parts is given back where every photo agrees (see-through.ts).
  const seen = await openSeenThrough(masks, frame.cameras.filter((_, k) => carving(k)), grownBox(coarse.inside, 0.1), floorY ?? undefined);
  if (seen.openedShare > 0) {
    masks = seen.views;
    views = views.map((view, k) => withCleared(view, seen.cleared[k]));
    coarse = await coarseCarve();
    if (!coarse) throw new MediaError('inconsistent_views', 'The photos\u2019 outlines leave nothing in common', details);
    if (floorY !== null) coarse.inside.min[1] = Math.max(coarse.inside.min[1], floorY);
  }
  const { inside, samplers } = coarse;
  const centre = [0, 1, 2].map((a) => (inside.min[a] + inside.max[a]) / 2);
  const coverage = requireCoverage(frame.cameras, centre, details);
  const pad = 2 * coarse.step;
  const box = {
    min: inside.min.map((v) => v - pad) as [number, number, number],
    max: inside.max.map((v) => v + pad) as [number, number, number],
  };
  const grid = await carvePosedHull(samplers, box, {
    resolution: options.resolution ?? POSED_RESOLUTION,
    floorY: floorY ?? undefined,
    onSlab: async (done, total) => {
      if (done % 8 === 0) {
        await nextTick();
        await progress(5 + (33 * done) / total, 'carving');
      }
    },
  });
  await progress(40, 'checking');
  const cams = frame.cameras.filter((_, k) => carving(k));
  const heldOut = await heldOutAgreement({ views: masks, cams, box, floorY: floorY ?? undefined, centre });
  // A capture the held-out check already refuses spends no time on stereo: the gate below fails it either way.
  const surface = options.stereo === false || heldOut.median < MIN_HELDOUT_IOU ? null : await stereoSurface(grid, views, cams, floorY, progress);
  return finishHull(
    {
      grid: surface?.grid ?? grid,
      gate: { coverage, heldOut },
      views,
      cams,
      heldOut: { views: placed.filter((v) => options.heldOut?.has(v.index)), cams: frame.cameras.filter((_, k) => !carving(k)) },
      triangleBudget: options.triangleBudget,
      textureSize: options.textureSize,
      dimensions: options.dimensions,
      metresPerUnit: ground?.metresPerUnit ?? null,
      alignFootprint: true,
      origin: {
        method: surface?.grid ? 'posed_stereo' : 'posed_hull',
        pose_source: recovery.source,
        views_total: recovery.viewsTotal,
        stereo_coverage: surface?.coverage ?? null,
      },
      details,
    },
    progress,
  );
}

/**
 * The hull's grid with stereo's free space carved out (progress 42-65 'matching', then 'meshing'), and the
 * share of its surface stereo measured; the grid is null when stereo measured too little of the surface to
 * shape it (no texture, glare): the hull stands.
 */
async function stereoSurface(
  hull: ScalarGrid,
  views: readonly PreparedView[],
  cams: readonly PosedCamera[],
  floorY: number | null,
  progress: Progress,
): Promise<{ grid: ScalarGrid | null; coverage: number }> {
  await progress(42, 'matching');
  const stereo = await carveWithStereo(hull, views, cams, { floorY: floorY ?? undefined, onDepthMap: (done, total) => progress(42 + (23 * done) / total, 'matching') });
  await progress(65, 'meshing');
  const coverage = round3(stereoCoverage(marchingCubes(stereo.grid), stereo.grid, stereo.measured));
  return { grid: coverage >= MIN_STEREO_COVERAGE ? stereo.grid : null, coverage };
}
