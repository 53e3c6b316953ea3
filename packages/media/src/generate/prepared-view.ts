import sharp, { type OutputInfo } from 'sharp';
import type { GeneratorView, ResolvedHints } from './generator.js';
import { DECODE_CONCURRENCY, mapLimit } from '../util/map-limit.js';

/** Mask pixels at or above this count as product; the pipeline's masks have a soft rim. */
export const MASK_THRESHOLD = 128;
/** A photo with its decoded mask and the product's box, ready for carving and texturing. */
export interface PreparedView {
  /** Position in the caller's list. */
  index: number;
  image: Buffer;
  /** Display size (after EXIF orientation). */
  imageWidth: number;
  imageHeight: number;
  /** Greyscale mask, possibly smaller than the image. */
  mask: Uint8Array;
  maskWidth: number;
  maskHeight: number;
  /** Mask pixels per image pixel, per axis. */
  maskScaleX: number;
  maskScaleY: number;
  /** Product box in image pixels, pixel edges (x1, y1 exclusive). */
  bbox: { x0: number; y0: number; x1: number; y1: number };
  /** Share of the box that is product: near 1 for posters, rugs and boxes seen head-on. */
  fill: number;
  azimuthDeg: number;
  elevationDeg: number;
}

/**
 * Masks are decoded no longer than maxMaskSide (silhouettes need far less than texture does); fewer product
 * pixels than minProductPixels is a stray speck, and a box narrower or shorter than minBoxSide (mask pixels)
 * a sliver, not a view of the product.
 */
const LIMITS = { maxMaskSide: 1536, minProductPixels: 64, minBoxSide: 8 } as const;

async function prepareOne(view: GeneratorView, index: number, azimuthDeg: number, elevationDeg: number): Promise<PreparedView | null> {
  let imageWidth: number;
  let imageHeight: number;
  let mask: { data: Buffer; info: OutputInfo };
  try {
    const meta = await sharp(view.image).metadata();
    imageWidth = meta.autoOrient?.width ?? meta.width ?? 0;
    imageHeight = meta.autoOrient?.height ?? meta.height ?? 0;
    if (!imageWidth || !imageHeight) return null;
    const scale = Math.min(1, LIMITS.maxMaskSide / Math.max(imageWidth, imageHeight));
    // Always resized to the image's aspect: the contract says same size, and a mask
    // that is merely scaled still lines up with the photo.
    mask = await sharp(view.mask)
      .removeAlpha()
      .toColourspace('b-w')
      .resize(Math.max(1, Math.round(imageWidth * scale)), Math.max(1, Math.round(imageHeight * scale)), { fit: 'fill' })
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    // An undecodable photo or mask is an unusable view, like an empty mask; the
    // remaining views may still make a model.
    return null;
  }
  const { width: mw, height: mh, channels } = mask.info;
  const data = channels === 1 ? new Uint8Array(mask.data.buffer, mask.data.byteOffset, mw * mh) : firstChannel(mask.data, channels);

  let x0 = mw;
  let y0 = mh;
  let x1 = -1;
  let y1 = -1;
  let count = 0;
  for (let y = 0; y < mh; y++) {
    const row = y * mw;
    for (let x = 0; x < mw; x++) {
      if (data[row + x] < MASK_THRESHOLD) continue;
      count++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  if (count < LIMITS.minProductPixels) return null;
  const bw = x1 + 1 - x0;
  const bh = y1 + 1 - y0;
  if (bw < LIMITS.minBoxSide || bh < LIMITS.minBoxSide) return null;
  const sx = mw / imageWidth;
  const sy = mh / imageHeight;
  return {
    index,
    image: view.image,
    imageWidth,
    imageHeight,
    mask: data,
    maskWidth: mw,
    maskHeight: mh,
    maskScaleX: sx,
    maskScaleY: sy,
    bbox: { x0: x0 / sx, y0: y0 / sy, x1: (x1 + 1) / sx, y1: (y1 + 1) / sy },
    fill: count / (bw * bh),
    azimuthDeg,
    elevationDeg,
  };
}

function firstChannel(data: Buffer, channels: number): Uint8Array {
  const out = new Uint8Array(data.length / channels);
  for (let i = 0; i < out.length; i++) out[i] = data[i * channels];
  return out;
}

/**
 * Decodes every view and drops the unusable ones (undecodable, or a mask with no
 * product). Angles are assigned before dropping, so a turntable sequence with one bad
 * photo keeps the others at their true positions.
 */
export async function prepareViews(views: GeneratorView[], hints: ResolvedHints): Promise<PreparedView[]> {
  const n = views.length;
  const prepared = await mapLimit(views, DECODE_CONCURRENCY, (view, i) => {
    const azimuth = hints.azimuthsDeg?.[i] ?? view.azimuthDeg ?? (360 * i) / n;
    const elevation = view.elevationDeg ?? hints.elevationDeg;
    return prepareOne(view, i, azimuth, elevation);
  });
  return prepared.filter((v): v is PreparedView => v !== null);
}

/**
 * Widest angle between viewing directions, folded to [0°, 90°]: orthographic
 * silhouettes from opposite sides are mirror images and constrain the same thing.
 */
export function directionSpreadDeg(views: readonly PreparedView[]): number {
  let spread = 0;
  for (let i = 0; i < views.length; i++) {
    for (let j = i + 1; j < views.length; j++) {
      const d = (((views[i].azimuthDeg - views[j].azimuthDeg) % 180) + 180) % 180;
      spread = Math.max(spread, Math.min(d, 180 - d));
    }
  }
  return spread;
}
