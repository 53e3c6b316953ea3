import sharp from 'sharp';
import type { GeneratorView } from './generator.js';

// Synthetic product photos for the generator's tests and benchmark: orthographic
// turntable renders of shapes whose true size is known, ray-cast per pixel with a
// little shading and a pattern so texturing has something to carry. Masks are
// supersampled 2×2, giving the soft rim real cut-outs have.

export type Shape =
  | { kind: 'box'; width: number; height: number; depth: number }
  | { kind: 'cylinder'; radius: number; height: number }
  /** Resting on the floor; `height` must be twice the radius. */
  | { kind: 'sphere'; radius: number; height: number };

export interface RenderOptions {
  views: number;
  /** Square image side in pixels. */
  size: number;
  pixelsPerMetre: number;
  /** Camera height angle, same for every view; default 0 (level). */
  elevationDeg?: number;
}

type V3 = [number, number, number];
interface Hit {
  normal: V3;
  point: V3;
}

const LIGHT: V3 = normalise([0.4, 0.7, 0.6]);
const BACKDROP = 236;

function normalise(v: V3): V3 {
  const l = Math.hypot(...v);
  return [v[0] / l, v[1] / l, v[2] / l];
}

/** First surface along origin + t·dir, t > 0. */
function intersect(shape: Shape, o: V3, dir: V3): Hit | null {
  if (shape.kind === 'box') {
    const lo: V3 = [-shape.width / 2, 0, -shape.depth / 2];
    const hi: V3 = [shape.width / 2, shape.height, shape.depth / 2];
    let tNear = -Infinity;
    let tFar = Infinity;
    let axis = 0;
    for (let a = 0; a < 3; a++) {
      if (Math.abs(dir[a]) < 1e-12) {
        if (o[a] < lo[a] || o[a] > hi[a]) return null;
        continue;
      }
      const t1 = (lo[a] - o[a]) / dir[a];
      const t2 = (hi[a] - o[a]) / dir[a];
      const near = Math.min(t1, t2);
      if (near > tNear) {
        tNear = near;
        axis = a;
      }
      tFar = Math.min(tFar, Math.max(t1, t2));
    }
    if (tNear > tFar || tFar < 0) return null;
    const normal: V3 = [0, 0, 0];
    normal[axis] = dir[axis] > 0 ? -1 : 1;
    return { normal, point: [o[0] + tNear * dir[0], o[1] + tNear * dir[1], o[2] + tNear * dir[2]] };
  }
  if (shape.kind === 'sphere') {
    const oc: V3 = [o[0], o[1] - shape.radius, o[2]];
    const b = oc[0] * dir[0] + oc[1] * dir[1] + oc[2] * dir[2];
    const disc = b * b - (oc[0] ** 2 + oc[1] ** 2 + oc[2] ** 2 - shape.radius ** 2);
    if (disc < 0) return null;
    const t = -b - Math.sqrt(disc);
    const point: V3 = [o[0] + t * dir[0], o[1] + t * dir[1], o[2] + t * dir[2]];
    return { normal: [point[0] / shape.radius, (point[1] - shape.radius) / shape.radius, point[2] / shape.radius], point };
  }
  // Vertical cylinder on the floor: the nearest of its side and its two caps.
  let best: Hit | null = null;
  let bestT = Infinity;
  const a = dir[0] * dir[0] + dir[2] * dir[2];
  const b = 2 * (o[0] * dir[0] + o[2] * dir[2]);
  const c = o[0] * o[0] + o[2] * o[2] - shape.radius * shape.radius;
  const disc = b * b - 4 * a * c;
  if (a > 1e-12 && disc >= 0) {
    const t = (-b - Math.sqrt(disc)) / (2 * a);
    const point: V3 = [o[0] + t * dir[0], o[1] + t * dir[1], o[2] + t * dir[2]];
    if (t > 0 && point[1] >= 0 && point[1] <= shape.height) {
      best = { normal: [point[0] / shape.radius, 0, point[2] / shape.radius], point };
      bestT = t;
    }
  }
  for (const [y, ny] of [[shape.height, 1], [0, -1]]) {
    if (Math.abs(dir[1]) < 1e-12) continue;
    const t = (y - o[1]) / dir[1];
    const point: V3 = [o[0] + t * dir[0], y, o[2] + t * dir[2]];
    if (t > 0 && t < bestT && point[0] ** 2 + point[2] ** 2 <= shape.radius ** 2) {
      best = { normal: [0, ny, 0], point };
      bestT = t;
    }
  }
  return best;
}

/** Renders `views` photos at equal azimuth steps (view i at 360·i/views degrees). */
export async function renderTurntable(shape: Shape, opts: RenderOptions): Promise<GeneratorView[]> {
  const out: GeneratorView[] = [];
  for (let i = 0; i < opts.views; i++) out.push(await renderView(shape, (360 * i) / opts.views, opts));
  return out;
}

export async function renderView(shape: Shape, azimuthDeg: number, opts: RenderOptions): Promise<GeneratorView> {
  const { size, pixelsPerMetre: ppm } = opts;
  const th = (azimuthDeg * Math.PI) / 180;
  const ph = ((opts.elevationDeg ?? 0) * Math.PI) / 180;
  const toCamera: V3 = [Math.sin(th) * Math.cos(ph), Math.sin(ph), Math.cos(th) * Math.cos(ph)];
  const right: V3 = [Math.cos(th), 0, -Math.sin(th)];
  const up: V3 = [-Math.sin(th) * Math.sin(ph), Math.cos(ph), -Math.cos(th) * Math.sin(ph)];
  const dir: V3 = [-toCamera[0], -toCamera[1], -toCamera[2]];
  const midY = shape.height / 2;
  const rgb = new Uint8Array(size * size * 3).fill(BACKDROP);
  const mask = new Uint8Array(size * size);
  const cast = (px: number, py: number) => {
    // The image centre looks at the product's mid-height point on the axis.
    const xr = (px - size / 2) / ppm;
    const yu = (size / 2 - py) / ppm;
    const o: V3 = [0, 1, 2].map((i) => xr * right[i] + yu * up[i] + 2 * toCamera[i] + (i === 1 ? midY : 0)) as V3;
    return intersect(shape, o, dir);
  };
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let covered = 0;
      for (const [sx, sy] of [[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]]) if (cast(px + sx, py + sy)) covered++;
      mask[py * size + px] = Math.round((covered / 4) * 255);
      const hit = cast(px + 0.5, py + 0.5);
      if (!hit) continue;
      const shade = 0.45 + 0.55 * Math.max(0, hit.normal[0] * LIGHT[0] + hit.normal[1] * LIGHT[1] + hit.normal[2] * LIGHT[2]);
      // Horizontal bands plus a colour per facing direction: something for the texture to keep.
      const band = Math.floor(hit.point[1] / 0.03) % 2 === 0 ? 1 : 0.8;
      const base: V3 = [200 + 40 * hit.normal[0], 120 + 60 * hit.normal[2], 60 + 30 * hit.normal[1]];
      for (let c = 0; c < 3; c++) rgb[(py * size + px) * 3 + c] = Math.max(0, Math.min(255, Math.round(base[c] * shade * band)));
    }
  }
  const photo = sharp(rgb, { raw: { width: size, height: size, channels: 3 } });
  return {
    image: await photo.jpeg({ quality: 92 }).toBuffer(),
    mask: await sharp(mask, { raw: { width: size, height: size, channels: 1 } }).toColourspace('b-w').png().toBuffer(),
  };
}

/**
 * A flat product photographed head-on: a `width`×`height` pixel picture centred on a
 * backdrop; `shape` 'ellipse' makes a cut-out instead of a rectangle.
 */
export async function renderFlat(
  canvas: { width: number; height: number },
  product: { width: number; height: number; shape?: 'rectangle' | 'ellipse' },
): Promise<GeneratorView> {
  const { width: W, height: H } = canvas;
  const rgb = new Uint8Array(W * H * 3).fill(BACKDROP);
  const mask = new Uint8Array(W * H);
  const x0 = (W - product.width) / 2;
  const y0 = (H - product.height) / 2;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const u = (x + 0.5 - x0) / product.width;
      const v = (y + 0.5 - y0) / product.height;
      const inside =
        product.shape === 'ellipse' ? (u - 0.5) ** 2 + (v - 0.5) ** 2 <= 0.25 : u >= 0 && u <= 1 && v >= 0 && v <= 1;
      if (!inside) continue;
      mask[y * W + x] = 255;
      const i = (y * W + x) * 3;
      rgb[i] = Math.round(40 + 200 * u);
      rgb[i + 1] = Math.round(40 + 180 * v);
      rgb[i + 2] = 150;
    }
  }
  return {
    image: await sharp(rgb, { raw: { width: W, height: H, channels: 3 } }).jpeg({ quality: 92 }).toBuffer(),
    mask: await sharp(mask, { raw: { width: W, height: H, channels: 1 } }).toColourspace('b-w').png().toBuffer(),
  };
}
