import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Mat3, PosedCamera, Vec3 } from '../poses/camera.js';
import { resolveHints } from './generator.js';
import { carvePosedHull, posedSamplers } from './posed-carve.js';
import { prepareViews } from './prepared-view.js';
import { openSeenThrough, reachedFromBorder } from './see-through.js';

// Products ray-cast on a plain black backdrop from a ring of 12 cameras, with cut-outs that fill every hole of the
// outline, as a segmenter does with dark backdrop between a product's parts: a frame whose hole shows the backdrop
// (to be opened), and a solid block with a black panel on its front and a plain back (to be left whole).

const W = 320;
const H = 240;
const F = 300;
const BACKDROP: Vec3 = [12, 12, 14];
const PLASTER: Vec3 = [205, 190, 160];

interface Block {
  min: Vec3;
  max: Vec3;
}
type Paint = (point: Vec3, normal: Vec3) => Vec3;

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (a: Vec3): Vec3 => {
  const n = Math.hypot(...a);
  return [a[0] / n, a[1] / n, a[2] / n];
};

/** A camera at `eye` looking at the origin, image y down (COLMAP's convention). */
function lookAt(view: number, eye: Vec3): PosedCamera {
  const forward = unit(sub([0, 0, 0], eye));
  const right = unit(cross(forward, [0, 1, 0]));
  const down = cross(forward, right);
  const rotation = [...right, ...down, ...forward] as Mat3;
  const translation = [0, 1, 2].map((r) => -(rotation[r * 3] * eye[0] + rotation[r * 3 + 1] * eye[1] + rotation[r * 3 + 2] * eye[2])) as Vec3;
  return { view, width: W, height: H, fx: F, fy: F, cx: W / 2, cy: H / 2, k1: 0, k2: 0, rotation, translation };
}

/** Nearest hit of a ray with the blocks: distance and the face's outward normal. */
function hit(origin: Vec3, dir: Vec3, blocks: readonly Block[]): { t: number; normal: Vec3 } | null {
  let best: { t: number; normal: Vec3 } | null = null;
  for (const b of blocks) {
    let near = -Infinity;
    let far = Infinity;
    let axis = 0;
    for (let a = 0; a < 3; a++) {
      if (Math.abs(dir[a]) < 1e-12) {
        if (origin[a] < b.min[a] || origin[a] > b.max[a]) near = Infinity;
        continue;
      }
      const t0 = (b.min[a] - origin[a]) / dir[a];
      const t1 = (b.max[a] - origin[a]) / dir[a];
      const lo = Math.min(t0, t1);
      if (lo > near) [near, axis] = [lo, a];
      far = Math.min(far, Math.max(t0, t1));
    }
    if (near <= far && near > 0 && (!best || near < best.t)) {
      const normal: Vec3 = [0, 0, 0];
      normal[axis] = dir[axis] > 0 ? -1 : 1;
      best = { t: near, normal };
    }
  }
  return best;
}

/** The photo (PNG) and a cut-out that fills every hole of the true outline. */
async function shoot(cam: PosedCamera, blocks: readonly Block[], paint: Paint, backdrop: Vec3): Promise<{ image: Buffer; mask: Buffer }> {
  const rgb = Buffer.alloc(W * H * 3);
  const inside = new Uint8Array(W * H);
  const r = cam.rotation;
  const eye = [0, 1, 2].map((a) => -(r[a] * cam.translation[0] + r[3 + a] * cam.translation[1] + r[6 + a] * cam.translation[2])) as Vec3;
  let noise = 7;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const d: Vec3 = [(x + 0.5 - cam.cx) / F, (y + 0.5 - cam.cy) / F, 1];
      const dir = unit([0, 1, 2].map((a) => r[a] * d[0] + r[3 + a] * d[1] + r[6 + a] * d[2]) as Vec3);
      const h = hit(eye, dir, blocks);
      const i = y * W + x;
      // A little sensor noise, so the backdrop is not one exact value.
      noise = (noise * 48271) % 2147483647;
      const grain = (noise % 5) - 2;
      const colour = h ? paint([eye[0] + h.t * dir[0], eye[1] + h.t * dir[1], eye[2] + h.t * dir[2]], h.normal) : backdrop;
      if (h) inside[i] = 1;
      for (let c = 0; c < 3; c++) rgb[i * 3 + c] = Math.max(0, Math.min(255, colour[c] + grain));
    }
  }
  // Every hole of the outline filled: only backdrop that reaches the border stays out.
  const outside = reachedFromBorder((i) => !inside[i], W, H);
  const mask = Buffer.from(outside.map((o) => (o ? 0 : 255)));
  return {
    image: await sharp(rgb, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer(),
    mask: await sharp(mask, { raw: { width: W, height: H, channels: 1 } }).png().toBuffer(),
  };
}

/** Faces lit by their direction, so edges show as they would in a photo. */
/** A square frame, 0.2 m across and 0.04 m deep, round a 0.1 m hole, facing the cameras at azimuth 0 and 180°. */
const FRAME: Block[] = [
  { min: [-0.1, 0.05, -0.02], max: [0.1, 0.1, 0.02] },
  { min: [-0.1, -0.1, -0.02], max: [0.1, -0.05, 0.02] },
  { min: [-0.1, -0.05, -0.02], max: [-0.05, 0.05, 0.02] },
  { min: [0.05, -0.05, -0.02], max: [0.1, 0.05, 0.02] },
];

const shaded = (base: Vec3, normal: Vec3): Vec3 => {
  const light = 0.75 + 0.25 * (0.6 * normal[1] + 0.5 * normal[2] + 0.3 * normal[0]);
  return [base[0] * light, base[1] * light, base[2] * light];
};

async function capture(blocks: readonly Block[], paint: Paint, backdrop: Vec3 = BACKDROP) {
  const cams = Array.from({ length: 12 }, (_, k) => {
    const azimuth = (2 * Math.PI * k) / 12;
    const elevation = (15 * Math.PI) / 180;
    return lookAt(k, [0.6 * Math.cos(elevation) * Math.sin(azimuth), 0.6 * Math.sin(elevation), 0.6 * Math.cos(elevation) * Math.cos(azimuth)]);
  });
  const shots = await Promise.all(cams.map((cam) => shoot(cam, blocks, paint, backdrop)));
  const views = await prepareViews(shots, resolveHints({}));
  expect(views).toHaveLength(12);
  return { views, cams, box: { min: [-0.13, -0.13, -0.13] as Vec3, max: [0.13, 0.13, 0.13] as Vec3 } };
}

/** Whether the hull carved from `views` is empty at `point` (a ray through a hole passes there). */
async function emptyAt(views: Parameters<typeof posedSamplers>[0], cams: PosedCamera[], box: { min: Vec3; max: Vec3 }, point: Vec3) {
  const grid = await carvePosedHull(posedSamplers(views, cams), box, { resolution: 64 });
  const index = [0, 1, 2].map((a) => Math.round((point[a] - grid.origin[a]) / grid.step));
  return grid.values[(index[2] * grid.ny + index[1]) * grid.nx + index[0]] <= 0;
}

describe('openSeenThrough', () => {
  it('opens the backdrop a frame shows through its hole, which the cut-outs filled', async () => {
    const { views, cams, box } = await capture(FRAME, (_, n) => shaded(PLASTER, n));
    expect(await emptyAt(views, cams, box, [0, 0, 0])).toBe(false);
    const seen = await openSeenThrough(views, cams, box);
    expect(seen.refused).toBeNull();
    expect(seen.openedShare).toBeGreaterThan(0.02);
    // The front photo's hole is given back to the backdrop, and the hull carved with the result is open through it.
    expect(seen.cleared[0]?.[(H / 2) * W + W / 2]).toBe(1);
    expect(await emptyAt(seen.views, cams, box, [0, 0, 0])).toBe(true);
    // The frame's bars stay.
    expect(await emptyAt(seen.views, cams, box, [0, 0.075, 0])).toBe(false);
  });

  it('leaves a black panel on a block whole when the back of the block is plain plaster', async () => {
    // The same size, solid; its front carries a black square the size of the frame's hole, of the backdrop's colour.
    const block: Block[] = [{ min: [-0.1, -0.1, -0.02], max: [0.1, 0.1, 0.02] }];
    const paint: Paint = (p, n) => (n[2] > 0.5 && Math.abs(p[0]) < 0.05 && Math.abs(p[1]) < 0.05 ? BACKDROP : shaded(PLASTER, n));
    const { views, cams, box } = await capture(block, paint);
    const seen = await openSeenThrough(views, cams, box);
    // The front photos propose the panel; the back photos see plaster where it would open a hole.
    expect(seen.refused).toBe('product_seen');
    expect(seen.openedShare).toBe(0);
    expect(seen.views).toEqual(views);
    expect(await emptyAt(seen.views, cams, box, [0, 0, 0])).toBe(false);
  });

  it('proposes nothing on a light backdrop, whose gaps a segmenter cuts out itself', async () => {
    const { views, cams, box } = await capture(FRAME, (_, n) => shaded(PLASTER, n), [235, 235, 232]);
    const seen = await openSeenThrough(views, cams, box);
    expect(seen).toMatchObject({ openedShare: 0, refused: null });
  });

  it('proposes nothing on a backdrop with no one colour', async () => {
    const { views, cams, box } = await capture(FRAME, (_, n) => shaded(PLASTER, n));
    // The same photos with a busy backdrop: stripes of two colours round the product.
    const busy = await Promise.all(
      views.map(async (view) => {
        const { data, info } = await sharp(view.image).raw().toBuffer({ resolveWithObject: true });
        for (let i = 0; i < info.width * info.height; i++) {
          if (view.mask[i] >= 128) continue;
          const stripe = Math.floor((i % info.width) / 6) % 2 ? 90 : 30;
          for (let c = 0; c < 3; c++) data[i * 3 + c] = stripe;
        }
        return { ...view, image: await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } }).png().toBuffer() };
      }),
    );
    const seen = await openSeenThrough(busy, cams, box);
    expect(seen).toMatchObject({ openedShare: 0, refused: null });
  });
});
