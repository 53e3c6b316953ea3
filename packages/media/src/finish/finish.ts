import { createHash } from 'node:crypto';
import sharp, { type Sharp } from 'sharp';
import { cropChannel, findBounds, type AlphaPlane, type Box } from './mask-bounds.js';
import { createCanvas, paintProduct, paintShadow, type ProductPixels } from './compose.js';
import { renderShadow, type ShadowStyle } from './shadow.js';

// libvips defaults to one worker thread on this class of machine; exports are
// CPU bound and the host has two cores, so let each pipeline use both.
sharp.concurrency(2);

export type { ShadowStyle } from './shadow.js';
export type ImageFormat = 'jpeg' | 'png' | 'webp';

export interface ImageSettings {
  /** '#rrggbb' or 'transparent'. */
  background: string;
  shadow: ShadowStyle;
  /** Fraction (0..0.45) of the canvas side kept empty on each side of the product. */
  padding: number;
  format: ImageFormat;
}

export const DEFAULT_SETTINGS: ImageSettings = Object.freeze({
  background: '#ffffff',
  shadow: 'soft',
  padding: 0.08,
  format: 'jpeg',
});

export interface FinishInput {
  original: Buffer;
  /** 8-bit greyscale PNG, same size as the (EXIF-oriented) original, 255 =
   * product; null when the original carries its own alpha. */
  mask: Buffer | null;
  settings: ImageSettings;
  /** Output canvas side in px (square); default 2048. */
  size?: number;
}

export interface FinishedImage {
  data: Buffer;
  width: number;
  height: number;
  contentType: string;
  ext: 'jpg' | 'png' | 'webp';
}

export const DEFAULT_SIZE = 2048;
export const MIN_SIZE = 16;
export const MAX_SIZE = 8192;
export const MAX_PADDING = 0.45;

/** Bump whenever the rendering changes, so cached finished images are redone. */
const RENDER_VERSION = 1;

const SHADOWS: readonly ShadowStyle[] = ['none', 'soft', 'hard', 'contact'];
const FORMATS: readonly ImageFormat[] = ['jpeg', 'png', 'webp'];
const HEX_COLOUR = /^#[0-9a-f]{6}$/;

/**
 * Fills in defaults and validates. Absent and null fields both take the
 * default, since settings usually arrive as JSON. Without an explicit format a
 * transparent background picks PNG; an explicit JPEG with it is an error
 * rather than a silent change of format.
 */
export function resolveSettings(partial: Partial<ImageSettings> | null | undefined): ImageSettings {
  if (partial != null && typeof partial !== 'object') throw new RangeError('settings must be an object');
  const p: Partial<Record<keyof ImageSettings, unknown>> = partial ?? {};

  const rawBackground = p.background ?? DEFAULT_SETTINGS.background;
  if (typeof rawBackground !== 'string') throw new RangeError('background must be a string');
  const background = rawBackground.trim().toLowerCase();
  if (background !== 'transparent' && !HEX_COLOUR.test(background)) {
    throw new RangeError(`background must be '#rrggbb' or 'transparent', got '${rawBackground}'`);
  }

  const shadow = p.shadow ?? DEFAULT_SETTINGS.shadow;
  if (!SHADOWS.includes(shadow as ShadowStyle)) {
    throw new RangeError(`shadow must be one of ${SHADOWS.join(', ')}`);
  }

  const padding = p.padding ?? DEFAULT_SETTINGS.padding;
  if (typeof padding !== 'number' || !Number.isFinite(padding) || padding < 0 || padding > MAX_PADDING) {
    throw new RangeError(`padding must be a number between 0 and ${MAX_PADDING}`);
  }

  let format: ImageFormat;
  if (p.format == null) {
    format = background === 'transparent' ? 'png' : DEFAULT_SETTINGS.format;
  } else {
    if (!FORMATS.includes(p.format as ImageFormat)) throw new RangeError(`format must be one of ${FORMATS.join(', ')}`);
    format = p.format as ImageFormat;
  }
  if (format === 'jpeg' && background === 'transparent') throw new RangeError('jpeg cannot be transparent');

  return { background, shadow: shadow as ShadowStyle, padding, format };
}

/**
 * Key for caching a finished image. The inputs are hashed in a fixed order so
 * the key does not depend on property order; the mask is not part of it, so a
 * caller whose masks can change must fold the mask into `imageSha256`.
 */
export function settingsCacheKey(imageSha256: string, settings: ImageSettings, size: number): string {
  const canonical = JSON.stringify([
    'plinth-finish',
    RENDER_VERSION,
    imageSha256.toLowerCase(),
    size,
    settings.background.toLowerCase(),
    settings.shadow,
    settings.padding,
    settings.format,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

interface Cutout {
  bounds: Box;
  /** Alpha cropped to `bounds`, at source resolution. */
  silhouette: AlphaPlane;
  /** The product scaled to `width` × `height`, as straight RGBA. */
  render(width: number, height: number): Promise<ProductPixels>;
}

export async function finishImage(input: FinishInput): Promise<FinishedImage> {
  const settings = resolveSettings(input.settings);
  const size = input.size ?? DEFAULT_SIZE;
  if (!Number.isInteger(size) || size < MIN_SIZE || size > MAX_SIZE) {
    throw new RangeError(`size must be an integer between ${MIN_SIZE} and ${MAX_SIZE}`);
  }
  const background = parseBackground(settings.background);

  const cutout = await cutOut(input.original, input.mask);
  const placement = fitProduct(cutout.bounds, size, settings.padding);
  const [product, shadow] = await Promise.all([
    cutout.render(placement.width, placement.height),
    settings.shadow === 'none'
      ? null
      : renderShadow({ size, shadow: settings.shadow, placement, silhouette: cutout.silhouette }),
  ]);

  const canvas = createCanvas(size, background);
  if (shadow) paintShadow(canvas, shadow, background, product, placement);
  paintProduct(canvas, product, placement);
  return encode(sharp(canvas.data, { raw: { width: size, height: size, channels: canvas.channels } }), settings.format);
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

function requireBounds(bounds: Box | null): Box {
  if (!bounds) throw new RangeError('the mask contains no product');
  return bounds;
}

/** Scales the product's bounding box to fit inside the padded canvas, centred. */
export function fitProduct(bounds: Box, size: number, padding: number): Box {
  const inner = Math.max(1, size * (1 - 2 * padding));
  const scale = Math.min(inner / bounds.width, inner / bounds.height);
  const width = Math.min(size, Math.max(1, Math.round(bounds.width * scale)));
  const height = Math.min(size, Math.max(1, Math.round(bounds.height * scale)));
  return {
    left: Math.floor((size - width) / 2),
    top: Math.floor((size - height) / 2),
    width,
    height,
  };
}

function parseBackground(background: string): [number, number, number] | null {
  if (background === 'transparent') return null;
  const n = Number.parseInt(background.slice(1), 16);
  return [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

async function encode(pipeline: Sharp, format: ImageFormat): Promise<FinishedImage> {
  let encoded: Sharp;
  let contentType: string;
  let ext: FinishedImage['ext'];
  switch (format) {
    case 'jpeg':
      // mozjpeg (trellis quantisation, progressive scans) measured about 8×
      // the CPU of libjpeg-turbo on a 2048² product shot for ~25% smaller
      // files: it would cost more than all of the finishing.
      encoded = pipeline.jpeg({ quality: 90, mozjpeg: false });
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
