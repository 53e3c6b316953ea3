import { setImmediate as nextTick } from 'node:timers/promises';
import { MediaError } from '../errors.js';
import { cameraCentre, projectPoint, type CameraRecovery, type PosedCamera } from '../poses/camera.js';
import { DEFAULT_TALLEST_SIDE_METRES, type GenerateResult } from './generator.js';
import { writePartsGlb } from './glb-writer.js';
import { textureHull } from './hull-texture.js';
import { marchingCubes, type TriangleMesh } from './marching-cubes.js';
import { simplifyToBudget } from './mesh-simplify.js';
import { round3, type ModelQuality } from './model-quality.js';
import { carvePosedHull, fillSmallHoles, insideBox, posedSamplers } from './posed-carve.js';
import { directionToCameraFrame, findFloor, modelFrame } from './posed-frame.js';
import { gateModel, MIN_LARGEST_PIECE, MIN_MEDIAN_IOU, silhouetteIoU } from './posed-gate.js';
import type { PreparedView } from './prepared-view.js';
import { groundInModelFrame } from '../mat/mat-ground.js';

// The built-in generator for captures with real cameras (recovered by structure from motion, or given):
// level the cameras into the product's frame, carve with their perspective projections, texture each
// triangle from the view that faces it best, then check the result against every photo before calling
// it a model (see posed-gate.ts).

/** Fewer registered views than this cannot carve a shape. */
export const MIN_POSED_VIEWS = 3;
const COARSE_RESOLUTION = 48;
export const POSED_RESOLUTION = 128;

export interface Dimensions {
  height?: number;
  width?: number;
  depth?: number;
}

export interface PosedOptions {
  triangleBudget: number;
  textureSize: number;
  dimensions?: Dimensions | null;
  resolution?: number;
  /** Photos placed by the cameras but kept out of carving, to measure the model on views it never saw. */
  heldOut?: ReadonlySet<number>;
}

export type PosedResult = GenerateResult & { quality: ModelQuality; heldOutIous: number[] };

type Progress = (percent: number, step: string) => Promise<void>;

/** A view touching the image border shows a cut-off product: its outline would carve away the rest. */
function usableForCarving(view: PreparedView): boolean {
  const { x0, y0, x1, y1 } = view.bbox;
  return x0 > 1 && y0 > 1 && x1 < view.imageWidth - 1 && y1 < view.imageHeight - 1;
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

function meshBox(positions: Float32Array): { min: number[]; max: number[]; size: number[] } {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i++) {
    const a = i % 3;
    if (positions[i] < min[a]) min[a] = positions[i];
    if (positions[i] > max[a]) max[a] = positions[i];
  }
  return { min, max, size: [0, 1, 2].map((a) => max[a] - min[a]) };
}

/** Metres per model unit: from the given size (height first), else as measured (the mat), else the default tallest side. */
function metricScale(size: number[], dimensions: Dimensions | null | undefined, measured: number | null): { scale: number; source: ModelQuality['scale_source'] } {
  if (dimensions?.height) return { scale: dimensions.height / size[1], source: 'given' };
  if (dimensions?.width) return { scale: dimensions.width / size[0], source: 'given' };
  if (dimensions?.depth) return { scale: dimensions.depth / size[2], source: 'given' };
  if (measured) return { scale: measured, source: 'mat' };
  return { scale: DEFAULT_TALLEST_SIDE_METRES / Math.max(...size), source: 'assumed' };
}

export async function generatePosedHull(
  prepared: readonly PreparedView[],
  recovery: CameraRecovery,
  options: PosedOptions,
  progress: Progress,
): Promise<PosedResult> {
  const byIndex = new Map(recovery.cameras.map((cam) => [cam.view, cam]));
  const registered = prepared.filter((view) => byIndex.has(view.index));
  const placed = registered.filter(usableForCarving);
  const views = placed.filter((v) => !options.heldOut?.has(v.index));
  const details = { views_total: recovery.viewsTotal, views_registered: registered.length, views_usable: views.length };
  if (views.length < MIN_POSED_VIEWS) {
    throw new MediaError('poses_not_found', `Only ${registered.length} of ${recovery.viewsTotal} photos could be placed in 3D; at least ${MIN_POSED_VIEWS} are needed`, details);
  }
  const placedCams = placed.map((v) => byIndex.get(v.index)!);
  let frame = modelFrame(placed, placedCams, recovery.points, recovery.floor?.normal);
  const masks = views.map(fillSmallHoles);
  const carving = (k: number) => !options.heldOut?.has(placed[k].index);

  await progress(5, 'carving');
  const coarseCarve = async () => {
    const r = frame.radius;
    const samplers = posedSamplers(masks, frame.cameras.filter((_, k) => carving(k)));
    const grid = await carvePosedHull(samplers, { min: [-r, -r, -r], max: [r, r, r] }, { resolution: COARSE_RESOLUTION });
    return insideBox(grid) && { inside: insideBox(grid)!, step: grid.step, samplers };
  };
  let coarse = await coarseCarve();
  if (!coarse) throw new MediaError('inconsistent_views', 'The photos\u2019 outlines leave nothing in common', details);
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
  const { inside, samplers } = coarse;
  let cams = frame.cameras.filter((_, k) => carving(k));
  let heldOutCams = frame.cameras.filter((_, k) => !carving(k));
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
        await progress(5 + (50 * done) / total, 'carving');
      }
    },
  });
  const surface = marchingCubes(grid);
  if (surface.indices.length === 0) throw new MediaError('inconsistent_views', 'The photos\u2019 outlines leave nothing in common', details);
  const simplified = await simplifyToBudget(surface, options.triangleBudget);
  if (simplified.indices.length === 0) throw new MediaError('inconsistent_views', 'The carved shape vanished when simplified', details);
  const yaw = footprintYaw(simplified.positions);
  cams = applyYaw(simplified.positions, cams, yaw);
  heldOutCams = applyYaw(new Float32Array(0), heldOutCams, yaw);
  const heldOutViews = placed.filter((v) => options.heldOut?.has(v.index));
  const heldOutIous = heldOutViews.map((view, k) => silhouetteIoU(simplified, view, heldOutCams[k]));

  await progress(60, 'texturing');
  const gate = gateModel(simplified, views, cams);
  const quality: ModelQuality = {
    method: 'posed_hull',
    pose_source: recovery.source,
    views_used: views.length,
    views_total: recovery.viewsTotal,
    silhouette_iou: { median: round3(gate.median), min: round3(gate.min) },
    largest_piece: round3(gate.largestPiece),
    scale_source: 'assumed',
  };
  if (!gate.passed) {
    throw new MediaError(
      'inconsistent_views',
      `The model does not agree with the photos closely enough to be trusted: silhouette IoU median ${quality.silhouette_iou!.median} ` +
        `(at least ${MIN_MEDIAN_IOU} needed), largest piece ${quality.largest_piece} of the surface (at least ${MIN_LARGEST_PIECE}), ` +
        `${views.length} of ${recovery.viewsTotal} photos placed`,
      { ...details, quality },
    );
  }
  const centres = cams.map(cameraCentre);
  const textured = await textureHull(
    simplified,
    views,
    cams.map((cam, k) => ({ cam, toCamera: unit(centres[k]) })),
    options.textureSize,
    (c, x, y, z) => {
      const [px, py] = projectPoint(c.cam, x, y, z);
      return [px, py];
    },
  );
  await progress(90, 'storing_model');
  const { min, max, size } = meshBox(textured.mesh.positions);
  const { scale, source } = metricScale(size, options.dimensions, ground?.metresPerUnit ?? null);
  quality.scale_source = source;
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

const unit = (v: readonly number[]): [number, number, number] => {
  const n = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / n, v[1] / n, v[2] / n];
};

export type { TriangleMesh };
