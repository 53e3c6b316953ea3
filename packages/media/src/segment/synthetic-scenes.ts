/**
 * Synthetic product photos with exact ground truth: a product drawn with a known (supersampled,
 * anti-aliased) alpha, composited over a backdrop that may carry a floor and the product's own cast
 * and contact shadows. The shadows darken the backdrop only, so the truth never includes them.
 */
import type { RgbImage } from './segment-types.js';

export type Backdrop = 'plain' | 'gradient' | 'textured' | 'photographic' | 'white' | 'dark' | 'nothing' | 'texture-only';

export interface Scene {
  name: string;
  backdrop: Backdrop;
  shape: 'box' | 'bottle';
  floor: boolean;
  shadow: boolean;
}

export interface SyntheticImage {
  scene: Scene;
  image: RgbImage;
  /** exact product alpha, 0..1 */
  truth: Float32Array;
}

export const SCENES: Scene[] = [
  { name: 'plain-box', backdrop: 'plain', shape: 'box', floor: false, shadow: true },
  { name: 'plain-bottle-floor', backdrop: 'plain', shape: 'bottle', floor: true, shadow: true },
  { name: 'gradient-box-floor', backdrop: 'gradient', shape: 'box', floor: true, shadow: true },
  { name: 'gradient-bottle', backdrop: 'gradient', shape: 'bottle', floor: false, shadow: true },
  { name: 'textured-box', backdrop: 'textured', shape: 'box', floor: true, shadow: true },
  { name: 'photographic-bottle', backdrop: 'photographic', shape: 'bottle', floor: false, shadow: false },
  { name: 'white-on-white-box', backdrop: 'white', shape: 'box', floor: true, shadow: true },
  { name: 'dark-on-dark-bottle', backdrop: 'dark', shape: 'bottle', floor: true, shadow: true },
];

/** Images with no product at all: the answer must be `none`. */
export const EMPTY_SCENES: Scene[] = [
  { name: 'empty-gradient', backdrop: 'nothing', shape: 'box', floor: false, shadow: false },
  { name: 'full-frame-texture', backdrop: 'texture-only', shape: 'box', floor: false, shadow: false },
];

const W = 640;
const H = 480;

/** Deterministic noise so every run sees the same pixels. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

type Rgb = [number, number, number];

function backdropAt(kind: Backdrop, x: number, y: number, rand: () => number, blobs: Blob[]): Rgb {
  const t = y / H;
  switch (kind) {
    case 'plain':
      return [228, 231, 236];
    case 'gradient':
    case 'nothing':
      return [205 - 60 * t + (x / W) * 20, 222 - 50 * t, 242 - 40 * t];
    case 'white':
      return [246, 246, 244];
    case 'dark':
      return [28, 28, 31];
    case 'textured':
    case 'texture-only': {
      // Wood-like grain: stripes bent by a slow wave, plus fine noise.
      const grain = Math.sin((x + 18 * Math.sin(y / 37)) / 5.5) * 0.5 + 0.5;
      const n = rand() * 14 - 7;
      return [150 + 40 * grain + n, 105 + 28 * grain + n, 70 + 18 * grain + n];
    }
    case 'photographic': {
      // A lifestyle-like background: soft out-of-focus shapes of several colours.
      let c: Rgb = [120 + 40 * t, 140, 125 - 30 * t];
      for (const b of blobs) {
        const d = Math.hypot(x - b.x, y - b.y) / b.r;
        const w = Math.max(0, 1 - d * d);
        c = [c[0] + (b.c[0] - c[0]) * w, c[1] + (b.c[1] - c[1]) * w, c[2] + (b.c[2] - c[2]) * w];
      }
      const n = rand() * 8 - 4;
      return [c[0] + n, c[1] + n, c[2] + n];
    }
  }
}

interface Blob {
  x: number;
  y: number;
  r: number;
  c: Rgb;
}

/** Is (x, y) inside the product outline? Coordinates in pixels of the 640×480 frame. */
function insideShape(shape: Scene['shape'], x: number, y: number): boolean {
  if (shape === 'box') {
    const x0 = 230;
    const x1 = 410;
    const y0 = 110;
    const y1 = 380;
    const r = 10;
    if (x < x0 || x > x1 || y < y0 || y > y1) return false;
    const cx = Math.min(Math.max(x, x0 + r), x1 - r);
    const cy = Math.min(Math.max(y, y0 + r), y1 - r);
    return Math.hypot(x - cx, y - cy) <= r;
  }
  // Bottle: body, rounded shoulders, neck, cap.
  const cx = 320;
  if (y >= 200 && y <= 390) return Math.abs(x - cx) <= 70;
  if (y >= 140 && y < 200) {
    const half = 22 + 48 * Math.sqrt(Math.max(0, 1 - ((200 - y) / 60) ** 2));
    return Math.abs(x - cx) <= half;
  }
  if (y >= 90 && y < 140) return Math.abs(x - cx) <= 22;
  return false;
}

function productColour(scene: Scene, x: number, y: number): Rgb {
  const shade = 0.85 + 0.15 * Math.cos(((x - 320) / 110) * 1.2);
  let base: Rgb;
  if (scene.backdrop === 'white') base = [252, 251, 249];
  else if (scene.backdrop === 'dark') base = [52, 44, 40];
  else base = scene.shape === 'box' ? [196, 70, 52] : [60, 110, 170];
  // A printed label band with "text" stripes.
  const label = y > 250 && y < 320;
  if (label) {
    const ink = Math.floor(x / 9) % 3 === 0 && y > 270 && y < 300;
    base = ink
      ? scene.backdrop === 'dark'
        ? [120, 100, 60]
        : [40, 40, 48]
      : scene.backdrop === 'dark'
        ? [70, 60, 52]
        : [236, 226, 200];
  }
  if (scene.shape === 'bottle' && y < 140 && y >= 90) base = scene.backdrop === 'dark' ? [80, 80, 84] : [210, 180, 60];
  return [base[0] * shade, base[1] * shade, base[2] * shade];
}

export function makeScene(scene: Scene, seed = 7): SyntheticImage {
  const rand = rng(seed);
  const blobs: Blob[] = [];
  for (let i = 0; i < 9; i++) {
    blobs.push({
      x: rand() * W,
      y: rand() * H,
      r: 60 + rand() * 140,
      c: [rand() * 255, rand() * 255, rand() * 255],
    });
  }
  const data = new Uint8Array(W * H * 3);
  const truth = new Float32Array(W * H);
  const hasProduct = scene.backdrop !== 'nothing' && scene.backdrop !== 'texture-only';
  const floorY = 330;
  const baseY = scene.shape === 'box' ? 380 : 390;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      let c = backdropAt(scene.backdrop, x, y, rand, blobs);
      if (scene.floor && y >= floorY) {
        // The floor: a slightly different tone, brighter towards the camera.
        const f = 0.9 + 0.1 * ((y - floorY) / (H - floorY));
        c = [c[0] * f * 0.95, c[1] * f * 0.97, c[2] * f];
      }
      if (hasProduct && scene.shadow) {
        // Contact shadow right under the base, and a soft cast shadow to the right on the floor.
        const contact = Math.exp(-(((x - 320) / 110) ** 4) - ((y - baseY) / 7) ** 2);
        const cast = Math.exp(-(((x - 430) / 120) ** 2) - ((y - (baseY - 8)) / 18) ** 2);
        const dark = 1 - 0.55 * contact - 0.3 * cast;
        c = [c[0] * dark, c[1] * dark, c[2] * dark];
      }
      let cover = 0;
      if (hasProduct) {
        for (let sy = 0; sy < 4; sy++) {
          for (let sx = 0; sx < 4; sx++) if (insideShape(scene.shape, x + (sx + 0.5) / 4, y + (sy + 0.5) / 4)) cover++;
        }
      }
      const a = cover / 16;
      truth[y * W + x] = a;
      const p = a > 0 ? productColour(scene, x, y) : c;
      const o = (y * W + x) * 3;
      for (let k = 0; k < 3; k++) data[o + k] = Math.max(0, Math.min(255, Math.round(p[k] * a + c[k] * (1 - a))));
    }
  }
  return { scene, image: { data, width: W, height: H }, truth };
}

/** Intersection over union of alpha ≥ 128 against truth ≥ 0.5. */
export function iou(alpha: Uint8Array, truth: Float32Array): number {
  let inter = 0;
  let union = 0;
  for (let i = 0; i < truth.length; i++) {
    const a = alpha[i] >= 128;
    const b = truth[i] >= 0.5;
    if (a && b) inter++;
    if (a || b) union++;
  }
  return union === 0 ? 1 : inter / union;
}
