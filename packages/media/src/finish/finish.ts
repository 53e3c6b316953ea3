import sharp, { type Sharp } from 'sharp';
import { cropChannel, findBounds, PRODUCT_THRESHOLD, type AlphaPlane, type Box } from './mask-bounds.js';
import { createCanvas, paintProduct, paintShadow, type ProductPixels } from './compose.js';
import { confineShadow, renderShadow, shadowRows, type ShadowMap } from './shadow.js';
import { bandWidths, measureFile, type Edge, type FinishMeasurements } from './compliance.js';
import { resolveSettings, type CanvasSize, type ImageFormat, type ImageSettings, type ImageSettingsInput } from './settings.js';

// libvips defaults to one worker thread on this class of machine; exports are
// CPU bound and the host has two cores, so let each pipeline use both.
sharp.concurrency(2);

export type { ShadowStyle } from './shadow.js';
export * from './settings.js';

export interface FinishInput {
  original: Buffer;
  /** 8-bit greyscale PNG, same size as the (EXIF-oriented) original, 255 =
   * product; null when the original carries its own alpha. */
  mask: Buffer | null;
  settings: ImageSettingsInput | ImageSettings;
  /** A preview: the canvas scaled so that its longer side is this many px. */
  size?: number;
}

export interface FinishedImage {
  data: Buffer;
  width: number;
  height: number;
  contentType: string;
  ext: 'jpg' | 'png' | 'webp';
  /** What compliance is judged on, measured on this file and this cut-out. */
  measurements: FinishMeasurements;
}

export const MIN_PREVIEW = 16;
export const MAX_PREVIEW = 8192;
/** JPEG codes 8 × 8 blocks (4:4:4, see `encode`): a block that holds any product or shadow can ring
 * over all of its pixels, so the outer band is kept clear up to the block boundary. */
const JPEG_BLOCK = 8;

interface Cutout {
  bounds: Box;
  /** Alpha cropped to `bounds`, at source resolution. */
  silhouette: AlphaPlane;
  /** Edges of the source photo that the product touches. */
  edgesTouched: Edge[];
  /** The product scaled to `width` × `height`, as straight RGBA. */
  render(width: number, height: number): Promise<ProductPixels>;
}

export async function finishImage(input: FinishInput): Promise<FinishedImage> {
  const settings = resolveSettings(input.settings as ImageSettingsInput);
  const { width, height } = canvasOf(settings.size, input.size);
  const background = parseBackground(settings.background);

  const cutout = await cutOut(input.original, input.mask);
  const safe = background === null ? { left: 0, top: 0, width, height } : clearOfBand(width, height);
  let placement = fitProduct(cutout.bounds, { width, height }, settings.fill);
  let shadow: ShadowMap | null = null;
  if (settings.shadow !== 'none') {
    const style = settings.shadow;
    const shadowAt = (at: Box) => renderShadow({ width, height, shadow: style, placement: at, silhouette: cutout.silhouette });
    shadow = await shadowAt(placement);
    const moved = roomForShadow(placement, shadow, safe);
    if (moved.top !== placement.top) {
      placement = moved;
      shadow = await shadowAt(placement);
    }
    confineShadow(shadow, safe, Math.max(safe.width, safe.height) * 0.03);
  }
  const product = await cutout.render(placement.width, placement.height);

  const canvas = createCanvas(width, height, background);
  if (shadow) paintShadow(canvas, shadow, background, product, placement, safe);
  paintProduct(canvas, product, placement);
  const placed = findBounds(product, placement.width, placement.height, 4, 3, PRODUCT_THRESHOLD) ?? placement;
  const fill = Math.max(placed.width / width, placed.height / height);

  const encoded = await encode(sharp(canvas.data, { raw: { width, height, channels: canvas.channels } }), settings.format);
  const file = await measureFile(encoded.data);
  return { ...encoded, measurements: { ...file, fill, edgesTouched: cutout.edgesTouched } };
}

function canvasOf(size: CanvasSize, preview: number | undefined): CanvasSize {
  if (preview === undefined) return size;
  if (!Number.isInteger(preview) || preview < MIN_PREVIEW || preview > MAX_PREVIEW) {
    throw new RangeError(`size must be an integer between ${MIN_PREVIEW} and ${MAX_PREVIEW}`);
  }
  const k = preview / Math.max(size.width, size.height);
  return { width: Math.max(1, Math.round(size.width * k)), height: Math.max(1, Math.round(size.height * k)) };
}

/** The canvas less its outer band, widened to whole JPEG blocks: nothing but background may land outside it. */
export function clearOfBand(width: number, height: number): Box {
  const band = bandWidths(width, height);
  const left = Math.ceil(band.x / JPEG_BLOCK) * JPEG_BLOCK;
  const top = Math.ceil(band.y / JPEG_BLOCK) * JPEG_BLOCK;
  const right = Math.floor((width - band.x) / JPEG_BLOCK) * JPEG_BLOCK;
  const bottom = Math.floor((height - band.y) / JPEG_BLOCK) * JPEG_BLOCK;
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

/**
 * Moves the product up when its shadow would run past the bottom of the safe area, by at most half
 * the room above it, so that it stays near the middle; what still does not fit is faded out by
 * `confineShadow`. The shadow falls below the product, so it is the only direction needed.
 */
function roomForShadow(placement: Box, shadow: ShadowMap, safe: Box): Box {
  const rows = shadowRows(shadow);
  if (!rows) return placement;
  const overflow = rows.bottom - (safe.top + safe.height);
  const room = Math.floor((placement.top - safe.top) / 2);
  if (overflow <= 0 || room <= 0) return placement;
  return { ...placement, top: placement.top - Math.min(overflow, room) };
}

async function cutOut(original: Buffer, mask: Buffer | null): Promise<Cutout> {
  const meta = await sharp(original).metadata();
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height) throw new RangeError('original has no readable dimensions');

  if (mask && !meta.hasAlpha) {
    const alpha = await decodeMask(mask, width, height);
    const bounds = requireBounds(findBounds(alpha, width, height, 1, 0));
    const silhouette = cropChannel(alpha, width, 1, 0, bounds);
    return {
      bounds,
      silhouette,
      edgesTouched: edgesTouched(bounds, width, height),
      render: async (w, h) => {
        // Two pipelines because sharp joins extra channels after its resize
        // step. The RGBA crop is then resized with libvips premultiplying the
        // alpha, so the photo's backdrop cannot bleed into the product's edges.
        const { data, info } = await sharp(original)
          .autoOrient()
          .extract(bounds)
          .toColourspace('srgb')
          .joinChannel(silhouette.data, { raw: { width: bounds.width, height: bounds.height, channels: 1 } })
          .raw()
          .toBuffer({ resolveWithObject: true });
        if (info.channels !== 4) throw new Error(`expected RGBA after joining the mask, got ${info.channels} channels`);
        return resize(sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } }), w, h);
      },
    };
  }

  if (!mask && !meta.hasAlpha) throw new RangeError('a mask is required when the original has no alpha channel');
  // PNG/WebP originals with alpha: decode once to RGBA and work from the raw
  // pixels, as decoding a large PNG twice would dominate the cost.
  const rgba = await sharp(original).autoOrient().toColourspace('srgb').ensureAlpha().raw().toBuffer();
  if (mask) {
    // An explicit mask wins over the original's own alpha.
    const alpha = await decodeMask(mask, width, height);
    for (let i = 0, o = 3; i < alpha.length; i++, o += 4) rgba[o] = alpha[i];
  }
  const bounds = requireBounds(findBounds(rgba, width, height, 4, 3));
  return {
    bounds,
    silhouette: cropChannel(rgba, width, 4, 3, bounds),
    edgesTouched: edgesTouched(bounds, width, height),
    render: (w, h) => resize(sharp(rgba, { raw: { width, height, channels: 4 } }).extract(bounds), w, h),
  };
}

function resize(image: Sharp, width: number, height: number): Promise<Buffer> {
  return image.resize(width, height, { fit: 'fill' }).raw().toBuffer();
}

async function decodeMask(mask: Buffer, width: number, height: number): Promise<Buffer> {
  const { data, info } = await sharp(mask)
    .extractChannel(0)
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.width !== width || info.height !== height) {
    throw new RangeError(`mask is ${info.width}×${info.height} but the original is ${width}×${height}`);
  }
  return data;
}

function edgesTouched(b: Box, width: number, height: number): Edge[] {
  const edges: Edge[] = [];
  if (b.left === 0) edges.push('left');
  if (b.top === 0) edges.push('top');
  if (b.left + b.width === width) edges.push('right');
  if (b.top + b.height === height) edges.push('bottom');
  return edges;
}

function requireBounds(bounds: Box | null): Box {
  if (!bounds) throw new RangeError('the mask contains no product');
  return bounds;
}

/**
 * Scales the product's bounding box so that it fills `fill` of the canvas exactly on its tighter
 * axis (the longer side over the canvas side, on a square), centred.
 */
export function fitProduct(bounds: Box, canvas: CanvasSize, fill: number): Box {
  const scale = Math.min((canvas.width * fill) / bounds.width, (canvas.height * fill) / bounds.height);
  const width = Math.min(canvas.width, Math.max(1, Math.round(bounds.width * scale)));
  const height = Math.min(canvas.height, Math.max(1, Math.round(bounds.height * scale)));
  return {
    left: Math.floor((canvas.width - width) / 2),
    top: Math.floor((canvas.height - height) / 2),
    width,
    height,
  };
}

function parseBackground(background: string): [number, number, number] | null {
  if (background === 'transparent') return null;
  const n = Number.parseInt(background.slice(1), 16);
  return [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

async function encode(pipeline: Sharp, format: ImageFormat): Promise<Omit<FinishedImage, 'measurements'>> {
  let encoded: Sharp;
  let contentType: string;
  let ext: FinishedImage['ext'];
  switch (format) {
    case 'jpeg':
      // mozjpeg (trellis quantisation, progressive scans) measured about 8×
      // the CPU of libjpeg-turbo on a 2048² product shot for ~25% smaller
      // files: it would cost more than all of the finishing.
      // No chroma subsampling: a decoder's upsampling blends each chroma sample with its
      // neighbours, so a white band next to a coloured block would not decode as pure white.
      encoded = pipeline.jpeg({ quality: 90, mozjpeg: false, chromaSubsampling: '4:4:4' });
      contentType = 'image/jpeg';
      ext = 'jpg';
      break;
    case 'png':
      encoded = pipeline.png({ compressionLevel: 6 });
      contentType = 'image/png';
      ext = 'png';
      break;
    case 'webp':
      encoded = pipeline.webp({ quality: 90 });
      contentType = 'image/webp';
      ext = 'webp';
      break;
  }
  const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, contentType, ext };
}
