import sharp from 'sharp';
import { cameraCentre, scaleIntrinsics, type PosedCamera, type Vec3 } from '../../poses/camera.js';
import { DECODE_CONCURRENCY, mapLimit } from '../../util/map-limit.js';
import type { TriangleMesh } from '../marching-cubes.js';
import { MASK_THRESHOLD, type PreparedView } from '../prepared-view.js';
import { sharedGray } from './depth-workers.js';
import { rasterDepth } from './hull-depth.js';
import type { SweepImage, SweepTask } from './plane-sweep.js';

// The photos as stereo reads them: grey levels and cut-outs at one working size, the cameras scaled to it,
// each photo's hull depth range, and the neighbours each photo is matched against.

/** Longest side of the photos for stereo: finer costs time as its square, for little more surface. */
export const STEREO_MAX_SIDE = 400;
/** Neighbours per photo, and the angles (° between their lines of sight to the product) they are taken from. */
const NEIGHBOURS = 4;
const MIN_ANGLE_DEG = 4;
const MAX_ANGLE_DEG = 45;

export interface StereoView {
  image: SweepImage;
  camera: PosedCamera;
  /** 1 where the cut-out says product, at the stereo size. */
  mask: Uint8Array;
}

export async function stereoViews(views: readonly PreparedView[], cams: readonly PosedCamera[], maxSide = STEREO_MAX_SIDE): Promise<StereoView[]> {
  return mapLimit(views, DECODE_CONCURRENCY, async (view, k) => {
    const scale = Math.min(1, maxSide / Math.max(view.imageWidth, view.imageHeight));
    const width = Math.max(8, Math.round(view.imageWidth * scale));
    const height = Math.max(8, Math.round(view.imageHeight * scale));
    const [gray, mask] = await Promise.all([
      sharp(view.image, { autoOrient: true }).resize(width, height, { fit: 'fill' }).greyscale().raw().toBuffer(),
      sharp(view.mask, { raw: { width: view.maskWidth, height: view.maskHeight, channels: 1 } }).resize(width, height, { fit: 'fill' }).toColourspace('b-w').raw().toBuffer(),
    ]);
    const shared = sharedGray(width * height);
    shared.set(gray.subarray(0, width * height));
    const camera = scaleIntrinsics(cams[k], width, height);
    const on = new Uint8Array(width * height);
    for (let i = 0; i < on.length; i++) on[i] = mask[i] >= MASK_THRESHOLD ? 1 : 0;
    return {
      image: { width, height, gray: shared, fx: camera.fx, fy: camera.fy, cx: camera.cx, cy: camera.cy, rotation: [...camera.rotation], translation: [...camera.translation] },
      camera,
      mask: on,
    };
  });
}

/** For each photo, the photos whose line of sight to `centre` is closest to its own without being the same. */
export function neighbourViews(cams: readonly PosedCamera[], centre: Vec3): number[][] {
  const dirs = cams.map((cam) => {
    const c = cameraCentre(cam);
    const d = [c[0] - centre[0], c[1] - centre[1], c[2] - centre[2]];
    const len = Math.hypot(d[0], d[1], d[2]) || 1;
    return d.map((v) => v / len);
  });
  return dirs.map((a, i) =>
    dirs
      .map((b, j) => ({ j, angle: (Math.acos(Math.max(-1, Math.min(1, a[0] * b[0] + a[1] * b[1] + a[2] * b[2]))) * 180) / Math.PI }))
      .filter(({ j, angle }) => j !== i && angle >= MIN_ANGLE_DEG && angle <= MAX_ANGLE_DEG)
      .sort((p, q) => p.angle - q.angle)
      .slice(0, NEIGHBOURS)
      .map(({ j }) => j),
  );
}

/** One sweep per photo: its neighbours and the hull's depth range in it. */
export function sweepTasks(views: readonly StereoView[], hull: TriangleMesh, centre: Vec3): SweepTask[] {
  const neighbours = neighbourViews(
    views.map((v) => v.camera),
    centre,
  );
  return views.map((view, ref) => {
    const { near, far } = rasterDepth(hull, view.camera, view.image.width, view.image.height);
    return { ref, neighbours: neighbours[ref], near, far, mask: view.mask, radius: 3, maxPlanes: 160, minScore: 0.6, minTexture: 4 };
  });
}
