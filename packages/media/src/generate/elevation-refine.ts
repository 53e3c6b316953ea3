import { marchingCubes } from './marching-cubes.js';
import { carvePosedHull, posedSamplers } from './posed-carve.js';
import type { PreparedView } from './prepared-view.js';
import { hullBounds, turntablePosedCameras, type ViewCamera } from './turntable-camera.js';

// Views from above see the product's top as well as its height, so how many metres a
// pixel spans depends on the shape. calibrateTurntable starts from the prism model
// (flat top, straight sides), which is exact for boxes and cylinders and never too
// small for anything else. Round-topped products come out too wide with it, so the
// scales are then tightened by self-consistency: carve a coarse hull, and wherever it
// projects shorter than that view's silhouette, the view's scale was too large. The
// true scales are a fixed point, and starting above them the rounds only move down
// towards them.

const RESOLUTION = 64;
const MAX_ROUNDS = 8;
/** Differences smaller than this many coarse voxels are discretisation, not scale. */
const TOLERANCE_VOXELS = 1;

export async function refineElevatedScales(
  views: readonly PreparedView[],
  cams: readonly ViewCamera[],
  clipY: [number, number],
  onRound?: () => Promise<void>,
): Promise<ViewCamera[]> {
  let current = [...cams];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const bounds = hullBounds(views, current, clipY);
    if (!bounds) break;
    const samplers = posedSamplers(views, turntablePosedCameras(views, current));
    const grid = await carvePosedHull(samplers, bounds, { resolution: RESOLUTION, floorY: clipY[0], ceilingY: clipY[1] });
    const { positions } = marchingCubes(grid);
    if (positions.length === 0) break;
    let moved = false;
    current = current.map((cam, k) => {
      const [ux, uy, uz] = cam.up;
      let lo = Infinity;
      let hi = -Infinity;
      for (let i = 0; i < positions.length; i += 3) {
        const t = positions[i] * ux + positions[i + 1] * uy + positions[i + 2] * uz;
        if (t < lo) lo = t;
        if (t > hi) hi = t;
      }
      const pixels = views[k].bbox.y1 - views[k].bbox.y0;
      if (pixels * cam.metresPerPixel - (hi - lo) <= TOLERANCE_VOXELS * grid.step) return cam;
      moved = true;
      return { ...cam, metresPerPixel: (hi - lo) / pixels };
    });
    await onRound?.();
    if (!moved) break;
  }
  return current;
}
