import { MediaError } from '../errors.js';
import type { PosedCamera } from '../poses/camera.js';
import { DEFAULT_TALLEST_SIDE_METRES, type GenerateResult } from './generator.js';
import { writePartsGlb } from './glb-writer.js';
import { positionBox } from './position-box.js';
import { textureHull } from './hull-texture.js';
import { marchingCubes, type ScalarGrid } from './marching-cubes.js';
import { simplifyToBudget } from './mesh-simplify.js';
import { round3, type ModelQuality } from './model-quality.js';
import { MIN_HELDOUT_IOU, type CameraCoverage, type HeldOutAgreement } from './heldout-gate.js';
import { gateModel, MIN_LARGEST_PIECE, MIN_MEDIAN_IOU, silhouetteIoU } from './posed-gate.js';
import type { PreparedView } from './prepared-view.js';

// Everything after carving, one way for every carved model, turntable or posed: the surface, simplified to
// the budget; the check against every photo carved from (posed-gate.ts), which refuses a model that
// disagrees with them; the texture from the photos; scale and placement; the GLB.

export interface Dimensions {
  height?: number;
  width?: number;
  depth?: number;
}

export interface HullModelInput {
  grid: ScalarGrid;
  /** The views carved from, with their cameras in the grid's frame (y up): checked and textured. */
  views: readonly PreparedView[];
  cams: readonly PosedCamera[];
  /** What the held-out gate measured before the surface (heldout-gate.ts): where the cameras stand, and agreement with left-out views. */
  gate: { coverage: CameraCoverage; heldOut: HeldOutAgreement };
  /** Views kept out of carving, only measured against the model (tests). */
  heldOut?: { views: readonly PreparedView[]; cams: readonly PosedCamera[] };
  triangleBudget: number;
  textureSize: number;
  /** The real size (height first, then width, then depth). */
  dimensions?: Dimensions | null;
  /** Metres per grid unit when the capture measured it (the mat); used when no size is given. */
  metresPerUnit?: number | null;
  /**
   * Turn the model about y so its footprint's longer side is the width (x). Recovered cameras leave the
   * heading arbitrary; a turntable's first photo is the product's front and keeps facing +z.
   */
  alignFootprint: boolean;
  /** What the record says about how the cameras were had. */
  origin: Pick<ModelQuality, 'method' | 'pose_source' | 'views_total'> & { stereo_coverage?: number | null };
  /** Carried by every failure, for the job's record. */
  details?: Record<string, unknown>;
}

export type HullModel = GenerateResult & { quality: ModelQuality; heldOutIous: number[] };

type Progress = (percent: number, step: string) => Promise<void>;

/**
 * The model from a carved grid, or `inconsistent_views` when nothing is left or the model fails the check.
 * Progress: 'texturing' at 70, 'storing_model' at 90 (carving, and for posed captures stereo, come before).
 */
export async function finishHull(input: HullModelInput, progress: Progress): Promise<HullModel> {
  const { views, details } = input;
  const surface = marchingCubes(input.grid);
  if (surface.indices.length === 0) throw new MediaError('inconsistent_views', 'The photos\u2019 outlines leave nothing in common', details);
  const mesh = await simplifyToBudget(surface, input.triangleBudget);
  if (mesh.indices.length === 0) throw new MediaError('inconsistent_views', 'The carved shape vanished when simplified', details);
  let cams = input.cams;
  let heldOutCams = input.heldOut?.cams ?? [];
  if (input.alignFootprint) {
    const yaw = footprintYaw(mesh.positions);
    cams = applyYaw(mesh.positions, cams, yaw);
    heldOutCams = applyYaw(new Float32Array(0), heldOutCams, yaw);
  }
  const heldOutIous = (input.heldOut?.views ?? []).map((view, k) => silhouetteIoU(mesh, view, heldOutCams[k]));

  await progress(70, 'texturing');
  const gate = gateModel(mesh, views, cams);
  const quality: ModelQuality = {
    ...input.origin,
    views_used: views.length,
    coverage: input.gate.coverage,
    heldout_iou: input.gate.heldOut,
    silhouette_iou: { median: round3(gate.median), min: round3(gate.min) },
    stereo_coverage: input.origin.stereo_coverage ?? null,
    largest_piece: round3(gate.largestPiece),
    scale_source: 'assumed',
  };
  const heldOutPassed = input.gate.heldOut.median >= MIN_HELDOUT_IOU;
  if (!gate.passed || !heldOutPassed) {
    throw new MediaError(
      'inconsistent_views',
      `The model does not agree with the photos closely enough to be trusted: on ${input.gate.heldOut.views} photos left out of it, ` +
        `silhouette IoU median ${input.gate.heldOut.median} (at least ${MIN_HELDOUT_IOU} needed); on the photos it was made from, ` +
        `median ${quality.silhouette_iou!.median} (at least ${MIN_MEDIAN_IOU}); largest piece ${quality.largest_piece} of the surface ` +
        `(at least ${MIN_LARGEST_PIECE}); ${views.length} of ${quality.views_total} photos used`,
      { ...details, quality },
    );
  }
  const textured = await textureHull(mesh, views, cams, input.textureSize);

  await progress(90, 'storing_model');
  const { min, max, size } = positionBox(textured.mesh.positions);
  const { scale, source } = metricScale(size, input.dimensions, input.metresPerUnit ?? null);
  quality.scale_source = source;
  // Footprint centred on the origin, base on y = 0.
  const shift = [(min[0] + max[0]) / 2, min[1], (min[2] + max[2]) / 2];
  const positions = textured.mesh.positions;
  for (let i = 0; i < positions.length; i++) positions[i] = (positions[i] - shift[i % 3]) * scale;
  const glb = await writePartsGlb('Product', [
    { name: 'Product', ...textured.mesh, material: { name: 'Product', texture: { image: textured.texture, mimeType: 'image/jpeg' } } },
  ]);
  return {
    glb,
    dimensions: { width: size[0] * scale, height: size[1] * scale, depth: size[2] * scale },
    triangles: textured.mesh.indices.length / 3,
    method: 'visual_hull',
    quality,
    heldOutIous,
  };
}

/** Metres per model unit: from the given size (height first), else as measured (the mat), else the default tallest side. */
function metricScale(size: number[], dimensions: Dimensions | null | undefined, measured: number | null): { scale: number; source: ModelQuality['scale_source'] } {
  if (dimensions?.height) return { scale: dimensions.height / size[1], source: 'given' };
  if (dimensions?.width) return { scale: dimensions.width / size[0], source: 'given' };
  if (dimensions?.depth) return { scale: dimensions.depth / size[2], source: 'given' };
  if (measured) return { scale: measured, source: 'mat' };
  return { scale: DEFAULT_TALLEST_SIDE_METRES / Math.max(...size), source: 'assumed' };
}

/** Rotation about y that makes the footprint's box smallest, with its longer side along x (width). */
function footprintYaw(positions: Float32Array): number {
  let best = 0;
  let bestArea = Infinity;
  for (let deg = 0; deg < 90; deg += 1) {
    const a = (deg * Math.PI) / 180;
    const [c, s] = [Math.cos(a), Math.sin(a)];
    let [x0, x1, z0, z1] = [Infinity, -Infinity, Infinity, -Infinity];
    for (let i = 0; i < positions.length; i += 3) {
      const x = c * positions[i] + s * positions[i + 2];
      const z = -s * positions[i] + c * positions[i + 2];
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (z < z0) z0 = z;
      if (z > z1) z1 = z;
    }
    const area = (x1 - x0) * (z1 - z0);
    if (area < bestArea) {
      bestArea = area;
      best = x1 - x0 >= z1 - z0 ? a : a + Math.PI / 2;
    }
  }
  return best;
}

/** Rotates the mesh about y by `yaw` in place, and the cameras with it. */
function applyYaw(positions: Float32Array, cams: readonly PosedCamera[], yaw: number): PosedCamera[] {
  const [c, s] = [Math.cos(yaw), Math.sin(yaw)];
  for (let i = 0; i < positions.length; i += 3) {
    const x = positions[i];
    const z = positions[i + 2];
    positions[i] = c * x + s * z;
    positions[i + 2] = -s * x + c * z;
  }
  // p' = Y·p, so R' = R·Yᵀ.
  const yt = [c, 0, -s, 0, 1, 0, s, 0, c];
  return cams.map((cam) => {
    const r = cam.rotation;
    const rotation = [0, 1, 2].flatMap((i) => [0, 1, 2].map((j) => r[i * 3] * yt[j] + r[i * 3 + 1] * yt[3 + j] + r[i * 3 + 2] * yt[6 + j]));
    return { ...cam, rotation: rotation as PosedCamera['rotation'] };
  });
}
