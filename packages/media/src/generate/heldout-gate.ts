import { setImmediate as nextTick } from 'node:timers/promises';
import { MediaError } from '../errors.js';
import { cameraCentre, type PosedCamera } from '../poses/camera.js';
import { marchingCubes } from './marching-cubes.js';
import { carvePosedHull, posedSamplers, type Box3 } from './posed-carve.js';
import { silhouetteIoU } from './posed-gate.js';
import type { PreparedView } from './prepared-view.js';

// The gate judged on photos the model did not see. A hull always agrees with the photos it was carved from
// (three photos agree with almost anything), so agreement there proves little. Before a carved model may be
// ready: enough of the photos were placed, the placed cameras go round the product, and for up to 8 placed
// views spread around it, the shape carved WITHOUT that view, seen through that view's camera, matches its
// cut-out. Wrong cameras, a moving product or a cut-out that picked something else fail the last test.

/** At least this many views must be placed, and at least this share of the photos whose cut-out found the product. */
export const MIN_PLACED_VIEWS = 8;
export const MIN_PLACED_SHARE = 0.6;
/** No gap wider than this between neighbouring cameras' azimuths around the up axis. */
export const MAX_AZIMUTH_GAP_DEG = 100;
/** Held-out views checked, spread around the product, and the median IoU they must reach. */
export const HELDOUT_VIEWS = 8;
export const MIN_HELDOUT_IOU = 0.85;
/** Leave-one-out shapes are carved coarser than the model: the check needs outline, not detail. */
const HELDOUT_RESOLUTION = 64;

export interface CameraCoverage {
  largest_gap_deg: number;
  elevation_min_deg: number;
  elevation_max_deg: number;
}

export interface HeldOutAgreement {
  median: number;
  min: number;
  views: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const DEG = 180 / Math.PI;

/** Refuses a capture with too few placed views: both numbers count the same photos the rule decides on. */
export function requireEnoughPlaced(placed: number, found: number, details: Record<string, unknown>, left?: string): void {
  const needed = Math.max(MIN_PLACED_VIEWS, Math.ceil(MIN_PLACED_SHARE * found - 1e-9));
  if (placed >= needed) return;
  throw new MediaError(
    'poses_not_found',
    `Only ${placed} of ${found} photos that show the product could be placed in 3D; at least ${needed} are needed ` +
      `(${MIN_PLACED_VIEWS} and at least ${Math.round(MIN_PLACED_SHARE * 100)}% of them)${left ?? ''}. ` +
      'Take more photos with more overlap (every 10-20 degrees), sharp, with texture in view.',
    { ...details, views_placed: placed, views_found: found, views_needed: needed },
  );
}

/** Azimuth (degrees, 0..360) and elevation of each camera centre around `centre`, y up. */
function cameraAngles(cams: readonly PosedCamera[], centre: readonly number[]): { azimuth: number; elevation: number }[] {
  return cams.map((cam) => {
    const [x, y, z] = cameraCentre(cam);
    const dx = x - centre[0];
    const dy = y - centre[1];
    const dz = z - centre[2];
    const azimuth = ((Math.atan2(dx, dz) * DEG) % 360 + 360) % 360;
    return { azimuth, elevation: Math.atan2(dy, Math.hypot(dx, dz)) * DEG };
  });
}

/** The widest empty arc between neighbouring camera azimuths, and the two cameras (indices) on its edges. */
function widestGap(azimuths: readonly number[]): { gap: number; from: number; after: number; before: number } {
  const order = azimuths.map((a, k) => ({ a, k })).sort((p, q) => p.a - q.a);
  if (order.length === 0) return { gap: 360, from: 0, after: -1, before: -1 };
  const last = order[order.length - 1];
  let best = { gap: order[0].a + 360 - last.a, from: last.a, after: last.k, before: order[0].k };
  for (let i = 1; i < order.length; i++) {
    const gap = order[i].a - order[i - 1].a;
    if (gap > best.gap) best = { gap, from: order[i - 1].a, after: order[i - 1].k, before: order[i].k };
  }
  return best;
}

/** Where the cameras stand round the product (y up, the product at `centre`). */
export function cameraCoverage(cams: readonly PosedCamera[], centre: readonly number[]): CameraCoverage {
  const angles = cameraAngles(cams, centre);
  const elevations = angles.map((a) => a.elevation);
  return {
    largest_gap_deg: round1(widestGap(angles.map((a) => a.azimuth)).gap),
    elevation_min_deg: round1(Math.min(...elevations)),
    elevation_max_deg: round1(Math.max(...elevations)),
  };
}

/**
 * Refuses cameras that leave a side of the product unseen. Recovered cameras have no heading of their own, so
 * the side is named by the photos: those on either edge of the missing arc, and the one that faces it squarely
 * from the other side (the unseen side is that photo's back).
 */
export function requireCoverage(cams: readonly PosedCamera[], centre: readonly number[], details: Record<string, unknown>): CameraCoverage {
  const coverage = cameraCoverage(cams, centre);
  if (coverage.largest_gap_deg <= MAX_AZIMUTH_GAP_DEG) return coverage;
  const azimuths = cameraAngles(cams, centre).map((a) => a.azimuth);
  const { gap, from, after, before } = widestGap(azimuths);
  const opposite = (from + gap / 2 + 180) % 360;
  const offBy = (a: number) => Math.abs(((a - opposite + 540) % 360) - 180);
  const facing = azimuths.reduce((best, a, k) => (offBy(a) < offBy(azimuths[best]) ? k : best), 0);
  const photo = (k: number) => cams[k].view + 1;
  throw new MediaError(
    'partial_coverage',
    `The photos do not go round the product: no photo sees it from a ${Math.round(gap)}\u00b0 arc, between photos ` +
      `${photo(after)} and ${photo(before)} (the side facing away from photo ${photo(facing)}); at most ${MAX_AZIMUTH_GAP_DEG}\u00b0 may be missing. ` +
      'Walk all the way round it, one photo every 10-20 degrees.',
    { ...details, coverage },
  );
}

/** Up to `count` views spread evenly by azimuth: indices into `cams`. */
export function spreadViews(cams: readonly PosedCamera[], centre: readonly number[], count: number): number[] {
  const order = cameraAngles(cams, centre)
    .map((a, k) => ({ k, azimuth: a.azimuth }))
    .sort((a, b) => a.azimuth - b.azimuth);
  if (order.length <= count) return order.map((o) => o.k);
  const picked: number[] = [];
  for (let i = 0; i < count; i++) picked.push(order[Math.floor((i * order.length) / count)].k);
  return picked;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export interface HeldOutInput {
  views: readonly PreparedView[];
  cams: readonly PosedCamera[];
  box: Box3;
  floorY?: number;
  ceilingY?: number;
  centre: readonly number[];
}

/**
 * For up to 8 views spread around the product: the shape carved from all the other views, projected into the
 * left-out one, against its cut-out.
 */
export async function heldOutAgreement(input: HeldOutInput, onView?: (done: number, total: number) => Promise<void>): Promise<HeldOutAgreement> {
  const { views, cams } = input;
  const picked = spreadViews(cams, input.centre, HELDOUT_VIEWS);
  const ious: number[] = [];
  for (const k of picked) {
    const others = views.map((_, j) => j).filter((j) => j !== k);
    const samplers = posedSamplers(others.map((j) => views[j]), others.map((j) => cams[j]));
    const grid = await carvePosedHull(samplers, input.box, {
      resolution: HELDOUT_RESOLUTION,
      floorY: input.floorY,
      ceilingY: input.ceilingY,
      onSlab: async (done) => {
        if (done % 16 === 0) await nextTick();
      },
    });
    const mesh = marchingCubes(grid);
    ious.push(mesh.indices.length === 0 ? 0 : silhouetteIoU(mesh, views[k], cams[k]));
    await onView?.(ious.length, picked.length);
  }
  return { median: round3(median(ious)), min: round3(Math.min(...ious)), views: ious.length };
}

/** A placed view whose outline agrees this little with the shape carved from the others was placed wrongly. */
export const MISPLACED_IOU = 0.5;
const MISPLACED_RESOLUTION = 40;

/**
 * The placed views (indices into `views`) that disagree with all the others: the shape carved from every
 * other view, seen through this view's camera, overlaps its cut-out by less than MISPLACED_IOU. A view placed
 * wrongly is worse than a view left out: with two of them the hull is cut through. Only a minority is ever
 * called misplaced; when most views disagree, the capture itself is inconsistent and the gate says so.
 */
export async function misplacedViews(input: HeldOutInput): Promise<number[]> {
  const { views, cams } = input;
  if (views.length <= MIN_PLACED_VIEWS) return [];
  const ious: number[] = [];
  for (let k = 0; k < views.length; k++) {
    const others = views.map((_, j) => j).filter((j) => j !== k);
    const samplers = posedSamplers(others.map((j) => views[j]), others.map((j) => cams[j]));
    const grid = await carvePosedHull(samplers, input.box, { resolution: MISPLACED_RESOLUTION, floorY: input.floorY, ceilingY: input.ceilingY });
    const mesh = marchingCubes(grid);
    ious.push(mesh.indices.length === 0 ? 0 : silhouetteIoU(mesh, views[k], cams[k]));
    if (k % 4 === 3) await nextTick();
  }
  const wrong = ious.map((iou, k) => (iou < MISPLACED_IOU ? k : -1)).filter((k) => k >= 0);
  return wrong.length * 3 <= views.length ? wrong : [];
}
