import type { SweepResult } from './plane-sweep.js';
import type { StereoView } from './stereo-views.js';

// A depth one photo measured is kept only when other photos measured the same surface point: its 3-D point,
// seen from another photo, lands where that photo's own depth map puts a surface at the same distance. The
// correlation threshold of the sweep is the photometric half of the check; this is the geometric half.
// A depth deep behind the hull's surface (beyond the fusion's cut-off) says every outline left standing
// space that is not there, and cuts it away: a wrong match two photos happen to agree on then costs the
// product a chunk, not a bump on its surface, so such a depth takes one more photo to confirm.

/** Other photos that must confirm a depth near the hull's surface. */
const MIN_CONFIRMING_VIEWS = 2;
/** Other photos that must confirm a depth deep behind it. */
const DEEP_CONFIRMING_VIEWS = 3;
/**
 * Texture a depth deep behind the hull's surface needs (grey levels of the window once its ramp is taken out,
 * see plane-sweep.ts). A smoothly shaded surface with faint texture correlates almost as well at every depth,
 * and the sweep then errs the same way in every photo (toward one end of the hull's range), so more photos
 * confirm the wrong depth rather than refuse it: such a depth may move the hull's surface a little, but not
 * cut new space out of it.
 */
const DEEP_MIN_TEXTURE = 7;
/** Relative depth difference still counted as the same surface. */
const DEPTH_TOLERANCE = 0.006;

export interface HullDepths {
  /** Per view (stereo size), the hull's nearest depth along each pixel's ray. */
  near: readonly Float32Array[];
  /** How far behind it along the ray a depth lies deep. */
  deep: number;
}

/** The depth maps with every unconfirmed depth cleared (0). */
export function consistentDepths(views: readonly StereoView[], maps: readonly SweepResult[], hull: HullDepths): Float32Array[] {
  return views.map((view, i) => {
    const { width: w, height: h, fx, fy, cx, cy, rotation: R, translation: t } = view.image;
    const depth = maps[i].depth;
    const near = hull.near[i];
    const out = new Float32Array(depth.length);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const d = depth[y * w + x];
        if (!(d > 0)) continue;
        // Camera → world: X = Rᵀ(x_cam − t).
        const xc = ((x + 0.5 - cx) / fx) * d - t[0];
        const yc = ((y + 0.5 - cy) / fy) * d - t[1];
        const zc = d - t[2];
        const X = R[0] * xc + R[3] * yc + R[6] * zc;
        const Y = R[1] * xc + R[4] * yc + R[7] * zc;
        const Z = R[2] * xc + R[5] * yc + R[8] * zc;
        const deep = d - near[y * w + x] > hull.deep;
        if (deep && maps[i].texture[y * w + x] < DEEP_MIN_TEXTURE) continue;
        const needed = deep ? DEEP_CONFIRMING_VIEWS : MIN_CONFIRMING_VIEWS;
        let confirmed = 0;
        for (let j = 0; j < views.length && confirmed < needed; j++) {
          if (j === i) continue;
          const o = views[j].image;
          const r = o.rotation;
          const zj = r[6] * X + r[7] * Y + r[8] * Z + o.translation[2];
          if (!(zj > 0)) continue;
          const px = Math.floor((o.fx * (r[0] * X + r[1] * Y + r[2] * Z + o.translation[0])) / zj + o.cx);
          const py = Math.floor((o.fy * (r[3] * X + r[4] * Y + r[5] * Z + o.translation[1])) / zj + o.cy);
          if (px < 0 || py < 0 || px >= o.width || py >= o.height) continue;
          const dj = maps[j].depth[py * o.width + px];
          if (dj > 0 && Math.abs(dj - zj) <= DEPTH_TOLERANCE * zj) confirmed++;
        }
        if (confirmed >= needed) out[y * w + x] = d;
      }
    }
    return out;
  });
}
