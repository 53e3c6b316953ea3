import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** Deterministic noise so a failing fixture fails the same way every run. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Shape = (x: number, y: number) => boolean;

export function roundedRect(x0: number, y0: number, x1: number, y1: number, r: number): Shape {
  return (x, y) => {
    if (x < x0 || x > x1 || y < y0 || y > y1) return false;
    const cx = Math.min(Math.max(x, x0 + r), x1 - r);
    const cy = Math.min(Math.max(y, y0 + r), y1 - r);
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
  };
}

export function circle(cx: number, cy: number, r: number): Shape {
  return (x, y) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

export function ring(cx: number, cy: number, outer: number, inner: number): Shape {
  return (x, y) => {
    const d = (x - cx) ** 2 + (y - cy) ** 2;
    return d <= outer * outer && d >= inner * inner;
  };
}

/**
 * A "product photo": a shaded object on a slightly noisy off-white backdrop. Returns raw RGB and
 * the ground-truth mask (pixel centres inside the shape).
 */
export function productScene(
  width: number,
  height: number,
  shape: Shape,
  opts: { background?: [number, number, number]; colour?: [number, number, number]; noise?: number; seed?: number } = {},
): { rgb: Buffer; truth: Uint8Array } {
  const bg = opts.background ?? [244, 243, 240];
  const fg = opts.colour ?? [200, 40, 60];
  const noise = opts.noise ?? 4;
  const rnd = prng(opts.seed ?? 1);
  const rgb = Buffer.alloc(width * height * 3);
  const truth = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const inside = shape(x + 0.5, y + 0.5);
      truth[i] = inside ? 1 : 0;
      // Shading across the object keeps it from being a flat, trivially separable colour.
      const shade = inside ? 0.75 + 0.35 * (x / width) : 1;
      for (let c = 0; c < 3; c++) {
        const base = inside ? fg[c] * shade : bg[c];
        const n = (rnd() + rnd() + rnd() - 1.5) * 2 * noise;
        rgb[i * 3 + c] = Math.max(0, Math.min(255, Math.round(base + n)));
      }
    }
  }
  return { rgb, truth };
}

/** Pixels of a mask PNG; `channels` is what the PNG itself stores (sharp's raw() would widen to RGB). */
export async function rawMask(png: Buffer): Promise<{ data: Buffer; width: number; height: number; channels: number }> {
  const meta = await sharp(png).metadata();
  const { data, info } = await sharp(png).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: meta.channels };
}

export function iou(mask: Uint8Array, truth: Uint8Array): number {
  let inter = 0;
  let union = 0;
  for (let i = 0; i < truth.length; i++) {
    const a = mask[i] >= 128;
    const b = truth[i] === 1;
    if (a && b) inter++;
    if (a || b) union++;
  }
  return union ? inter / union : 1;
}

export function truthBox(truth: Uint8Array, width: number): { x: number; y: number; width: number; height: number } {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -1;
  let y1 = -1;
  truth.forEach((v, i) => {
    if (!v) return;
    const x = i % width;
    const y = Math.floor(i / width);
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  });
  return { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/**
 * A 16-bit RGBA PNG written by hand: sharp's own 16-bit output path does not rescale 8-bit
 * samples, so this is the honest way to get a real 16-bit photographer's export.
 */
export function png16(width: number, height: number, pixel: (x: number, y: number) => [number, number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 16; // bit depth
  header[9] = 6; // colour type RGBA
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 8);
    for (let x = 0; x < width; x++) pixel(x, y).forEach((v, c) => row.writeUInt16BE(v, 1 + x * 8 + c * 2));
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
