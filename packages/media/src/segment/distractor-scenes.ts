/**
 * Synthetic photos whose most salient thing is not the product, with the product's exact mask: a big
 * bright object beside a small product, a hand (and arm) holding the product over a desk, a product
 * on a turntable disk, a product before a backdrop printed with large lettering. A cut-out that keeps
 * the distractor is wrong, and its confidence must say so. Each seed moves, sizes and colours things
 * differently, so one set of seeds can tune a threshold and another can check it.
 */
import type { RgbImage } from './segment-types.js';
import { rng } from './synthetic-scenes.js';

export type DistractorKind = 'bright-object' | 'hand' | 'turntable' | 'lettering';
export const DISTRACTOR_KINDS: DistractorKind[] = ['bright-object', 'hand', 'turntable', 'lettering'];

export interface DistractorImage {
  name: string;
  kind: DistractorKind;
  image: RgbImage;
  /** the product's exact alpha, 0..1 (the distractor is never part of it) */
  truth: Float32Array;
}

const W = 640;
const H = 480;
type Rgb = [number, number, number];
/** A layer: coverage of a pixel (0..1, sampled 4×4) and its colour there. */
interface Layer {
  inside: (x: number, y: number) => boolean;
  colour: (x: number, y: number) => Rgb;
  product?: boolean;
}

/** Neighbouring seeds far apart in the generator's state. */
function spread(seed: number): number {
  return (seed * 2654435761) >>> 0;
}

function roundedBox(x0: number, y0: number, x1: number, y1: number, r: number) {
  return (x: number, y: number) => {
    if (x < x0 || x > x1 || y < y0 || y > y1) return false;
    const cx = Math.min(Math.max(x, x0 + r), x1 - r);
    const cy = Math.min(Math.max(y, y0 + r), y1 - r);
    return Math.hypot(x - cx, y - cy) <= r;
  };
}

function ellipse(cx: number, cy: number, rx: number, ry: number) {
  return (x: number, y: number) => ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1;
}

/** Distance from (x, y) to the segment a–b. */
function capsule(ax: number, ay: number, bx: number, by: number, r: number) {
  return (x: number, y: number) => {
    const dx = bx - ax;
    const dy = by - ay;
    const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)));
    return Math.hypot(x - ax - t * dx, y - ay - t * dy) <= r;
  };
}

/** A small boxed product with a label band: the thing the shop sells. */
function product(rand: () => number, cx: number, cy: number, w: number, h: number): Layer {
  const hue = Math.floor(rand() * 3);
  const base: Rgb = hue === 0 ? [40, 90, 170] : hue === 1 ? [30, 120, 80] : [110, 50, 140];
  const x0 = cx - w / 2;
  const y0 = cy - h / 2;
  return {
    inside: roundedBox(x0, y0, x0 + w, y0 + h, 6),
    colour: (x, y) => {
      const band = y > y0 + h * 0.45 && y < y0 + h * 0.7;
      const ink = band && Math.floor(x / 6) % 3 === 0 && y > y0 + h * 0.52 && y < y0 + h * 0.62;
      const c: Rgb = ink ? [30, 30, 36] : band ? [238, 232, 214] : base;
      const shade = 0.82 + 0.18 * Math.cos(((x - cx) / w) * 2);
      return [c[0] * shade, c[1] * shade, c[2] * shade];
    },
    product: true,
  };
}

function scene(kind: DistractorKind, seed: number): { backdrop: (x: number, y: number, n: number) => Rgb; layers: Layer[] } {
  const rand = rng(spread(seed * 7 + DISTRACTOR_KINDS.indexOf(kind)));
  const wall: Rgb = [215 + rand() * 25, 212 + rand() * 25, 205 + rand() * 30];
  const plain = (_x: number, y: number, n: number): Rgb => {
    const t = y / H;
    return [wall[0] - 25 * t + n, wall[1] - 25 * t + n, wall[2] - 20 * t + n];
  };
  const side = rand() < 0.5 ? -1 : 1;
  if (kind === 'bright-object') {
    // A large saturated object (a bouquet, a poster, a toy) fills the middle; the product stands small beside it.
    const big: Rgb = [[235, 60, 40], [250, 190, 20], [40, 170, 230]][Math.floor(rand() * 3)] as Rgb;
    const r = 120 + rand() * 40;
    const bx = W / 2 - side * (40 + rand() * 30);
    const by = H / 2 + (rand() - 0.5) * 40;
    const distractor: Layer = {
      inside: ellipse(bx, by, r * (0.9 + rand() * 0.3), r),
      colour: (x, y) => {
        const s = 0.8 + 0.2 * Math.cos(Math.hypot(x - bx, y - by) / r * 2.5);
        return [big[0] * s, big[1] * s, big[2] * s];
      },
    };
    return { backdrop: plain, layers: [distractor, product(rand, W / 2 + side * (210 + rand() * 30), H / 2 + 60, 60 + rand() * 20, 90 + rand() * 20)] };
  }
  if (kind === 'hand') {
    // An arm reaching in from the frame edge over a wooden desk, its hand holding a small product.
    const deskY = 230 + rand() * 40;
    const desk = (x: number, y: number, n: number): Rgb => {
      if (y < deskY) return plain(x, y, n);
      const grain = Math.sin((x + 14 * Math.sin(y / 23)) / 4.5) * 0.5 + 0.5;
      return [140 + 40 * grain + n, 95 + 26 * grain + n, 60 + 16 * grain + n];
    };
    const skin: Rgb = [[224, 172, 140], [190, 130, 95], [140, 95, 70]][Math.floor(rand() * 3)] as Rgb;
    const hx = W / 2 + (rand() - 0.5) * 80;
    const hy = H / 2 + 30 + rand() * 30;
    const fromX = side > 0 ? W + 40 : -40;
    const fromY = H - 20 - rand() * 80;
    const skinLayer = (inside: Layer['inside']): Layer => ({
      inside,
      colour: (x, y) => {
        const s = 0.88 + 0.12 * Math.sin(x / 40 + y / 55);
        return [skin[0] * s, skin[1] * s, skin[2] * s];
      },
    });
    const arm = skinLayer(capsule(fromX, fromY, hx, hy, 42 + rand() * 10));
    const hand = skinLayer(ellipse(hx, hy - 10, 62, 48));
    const pw = 55 + rand() * 20;
    const ph = 75 + rand() * 20;
    return { backdrop: desk, layers: [arm, hand, product(rand, hx + side * -10, hy - 30 - ph / 4, pw, ph)] };
  }
  if (kind === 'turntable') {
    // A wide disk under a small product: the disk is as salient as the object on it.
    const disk: Rgb = rand() < 0.5 ? [250, 250, 250] : [60, 62, 70];
    const dx = W / 2 + (rand() - 0.5) * 40;
    const dy = 360 + rand() * 30;
    const rx = 230 + rand() * 40;
    const top: Layer = {
      inside: ellipse(dx, dy, rx, 55 + rand() * 20),
      colour: (x, y) => {
        const s = 0.9 + 0.1 * Math.cos((x - dx) / rx * 2);
        return [disk[0] * s, disk[1] * s, disk[2] * s];
      },
    };
    const pw = 70 + rand() * 30;
    const ph = 110 + rand() * 40;
    return { backdrop: plain, layers: [top, product(rand, dx, dy - ph / 2 + 5, pw, ph)] };
  }
  // Lettering: a backdrop printed with big dark glyph-like strokes behind and beside the product.
  const ink: Rgb = [[20, 20, 24], [170, 30, 30], [20, 50, 120]][Math.floor(rand() * 3)] as Rgb;
  const strokes: Array<(x: number, y: number) => boolean> = [];
  const baseline = 60 + rand() * 40;
  for (let i = 0; i < 7; i++) {
    const x0 = 30 + i * 85 + rand() * 10;
    const kindOf = Math.floor(rand() * 3);
    if (kindOf === 0) strokes.push(roundedBox(x0, baseline, x0 + 22, baseline + 150, 4));
    else if (kindOf === 1) strokes.push((x, y) => Math.abs(Math.hypot(x - x0 - 35, y - baseline - 75) - 58) < 12);
    else strokes.push(capsule(x0, baseline + 150, x0 + 60, baseline, 11));
  }
  const lettering = (x: number, y: number, n: number): Rgb =>
    strokes.some((s) => s(x, y)) ? [ink[0] + n, ink[1] + n, ink[2] + n] : plain(x, y, n);
  return { backdrop: lettering, layers: [product(rand, W / 2 + (rand() - 0.5) * 120, 300 + rand() * 40, 90 + rand() * 30, 130 + rand() * 30)] };
}

export function makeDistractorScene(kind: DistractorKind, seed: number): DistractorImage {
  const { backdrop, layers } = scene(kind, seed);
  const noise = rng(spread(seed + 1000));
  const data = new Uint8Array(W * H * 3);
  const truth = new Float32Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      let c = backdrop(x, y, noise() * 6 - 3);
      let t = 0;
      for (const layer of layers) {
        let cover = 0;
        for (let sy = 0; sy < 4; sy++) for (let sx = 0; sx < 4; sx++) if (layer.inside(x + (sx + 0.5) / 4, y + (sy + 0.5) / 4)) cover++;
        if (!cover) continue;
        const a = cover / 16;
        const p = layer.colour(x, y);
        c = [p[0] * a + c[0] * (1 - a), p[1] * a + c[1] * (1 - a), p[2] * a + c[2] * (1 - a)];
        // A layer drawn over the product hides it; the product over a layer adds to the truth.
        t = layer.product ? a + t * (1 - a) : t * (1 - a);
      }
      truth[y * W + x] = t;
      const o = (y * W + x) * 3;
      for (let k = 0; k < 3; k++) data[o + k] = Math.max(0, Math.min(255, Math.round(c[k])));
    }
  }
  return { name: `${kind}-${seed}`, kind, image: { data, width: W, height: H }, truth };
}
