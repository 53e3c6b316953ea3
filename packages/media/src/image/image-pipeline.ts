import { createHash } from 'node:crypto';
import sharp, { type Metadata, type SharpOptions } from 'sharp';
import { metadataMatches, rejectionFromSharpError, sniffImageFormat, type AcceptedFormat } from './image-formats.js';
import { estimateBackground, maskExtent, type Rgb } from './image-mask.js';
import { chooseSegmenter, judgeAlpha, segmentRgb, type SegmenterChoice } from '../segment/segment.js';
import type { CutoutInfo, SegmentResult } from '../segment/segment-types.js';
import { readCachedCut, writeCachedCut } from '../segment/cutout-cache.js';
import { MediaError } from '../errors.js';
import { laplacianVariance, lumaFromRaw, SHARPNESS_SIDE } from './sharpness.js';

export { BLURRY_THRESHOLD, isBlurry, laplacianVariance, sharpness } from './sharpness.js';

export interface ImageAnalysis {
  /** '#rrggbb': dominant border colour; for transparent images the border as seen over white */
  background: string;
  /** true when the image carries real transparency (an all-opaque alpha channel is dropped) */
  hasAlpha: boolean;
  /** 0..1 foreground fraction */
  coverage: number;
  /** foreground box in output pixels (after orientation); the whole image when nothing stands out */
  bbox: { x: number; y: number; width: number; height: number };
  /** variance of the Laplacian at longest side 512, comparable with `sharpness()` */
  sharpness: number;
  /** how the cut-out went: `none` means no product was found apart from its surroundings */
  cutout: CutoutInfo;
}

export interface ProcessedImage {
  original: Buffer;
  contentType: 'image/jpeg' | 'image/png' | 'image/webp';
  ext: 'jpg' | 'png' | 'webp';
  width: number;
  height: number;
  bytes: number;
  /** webp, longest side 512 (never enlarged) */
  thumbnail: Buffer;
  /** PNG, 8-bit greyscale, same size as `original`: 255 = product, soft rim */
  mask: Buffer;
  analysis: ImageAnalysis;
}

export interface ProcessImageOptions {
  /** default 40_000_000 */
  maxPixels?: number;
  /** default 64 */
  minSide?: number;
  /** which segmenter cuts out opaque images; default classical (the server passes its configured choice) */
  segmenter?: SegmenterChoice;
  /** the image is one of Plinth's own renders: its alpha is reported as `rendered` */
  rendered?: boolean;
  /** a directory shared by the worker children where cut-outs are kept by content hash and segmenter version */
  cutoutCacheDir?: string;
}

const OUTPUT: Record<AcceptedFormat, { contentType: ProcessedImage['contentType']; ext: ProcessedImage['ext'] }> = {
  jpeg: { contentType: 'image/jpeg', ext: 'jpg' },
  png: { contentType: 'image/png', ext: 'png' },
  webp: { contentType: 'image/webp', ext: 'webp' },
  // Browsers' AVIF support is still uneven and GIF is palette-limited: both become lossless PNG.
  avif: { contentType: 'image/png', ext: 'png' },
  gif: { contentType: 'image/png', ext: 'png' },
};

/**
 * Cut-outs by content hash and segmenter version, in this process (the sandbox child, which is reused):
 * the same photo submitted again, or retried, is not segmented twice. Bounded by total mask bytes.
 * With `cutoutCacheDir`, the other children and later processes share them too (cutout-cache.ts).
 */
const cutCache = new Map<string, SegmentResult>();
const CUT_CACHE_BYTES = 256 * 1024 * 1024;

function remember(key: string, cut: SegmentResult): void {
  cutCache.set(key, cut);
  let total = 0;
  for (const v of cutCache.values()) total += v.alpha.length;
  for (const [k, v] of cutCache) {
    if (total <= CUT_CACHE_BYTES || cutCache.size <= 1) break;
    cutCache.delete(k);
    total -= v.alpha.length;
  }
}

/** An alpha channel whose smallest value is this high carries no cut-out information. */
const OPAQUE_ALPHA = 250;

async function readHeader(input: Buffer): Promise<{ format: AcceptedFormat; meta: Metadata }> {
  const format = sniffImageFormat(input);
  if (!format) {
    throw new MediaError('unsupported_format', 'Only JPEG, PNG, WebP, AVIF and GIF images are accepted.');
  }
  let meta: Metadata;
  try {
    // Header only: no pixel is decoded here, which is what makes pixel bombs cheap to refuse.
    meta = await sharp(input, { failOn: 'error' }).metadata();
  } catch (err) {
    throw rejectionFromSharpError(err);
  }
  if (!metadataMatches(format, meta)) {
    throw new MediaError('unsupported_format', 'Only JPEG, PNG, WebP, AVIF and GIF images are accepted.', {
      detected: meta.format,
    });
  }
  return { format, meta };
}

function hex(c: Rgb): string {
  return '#' + c.map((v) => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, '0')).join('');
}

/** Composite RGBA over white into RGB: what a shopper sees, and what the backdrop logic expects. */
function overWhite(data: Uint8Array, n: number, channels: number): Uint8Array {
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const p = i * channels;
    const a = data[p + 3] / 255;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(data[p + c] * a + 255 * (1 - a));
  }
  return out;
}

export async function processImage(input: Buffer, opts: ProcessImageOptions = {}): Promise<ProcessedImage> {
  const maxPixels = opts.maxPixels ?? 40_000_000;
  const minSide = opts.minSide ?? 64;
  const { format, meta } = await readHeader(input);

  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height) throw new MediaError('corrupt_image', 'The image has no dimensions.');
  if (width * height > maxPixels) {
    throw new MediaError('too_many_pixels', `The image has ${width}×${height} pixels; at most ${maxPixels} are allowed.`, {
      width,
      height,
      maxPixels,
    });
  }
  if (Math.min(width, height) < minSide) {
    throw new MediaError('too_small', `The image is ${width}×${height}; both sides must be at least ${minSide} pixels.`, {
      width,
      height,
      minSide,
    });
  }

  // 'error' also aborts on truncation; 'warning' would refuse too many real-world camera JPEGs.
  const decode: SharpOptions = { failOn: 'error', limitInputPixels: maxPixels, autoOrient: true, pages: 1 };
  try {
    return await run(input, format, decode, { width, height }, opts);
  } catch (err) {
    if (err instanceof MediaError) throw err;
    throw rejectionFromSharpError(err);
  }
}

async function run(
  input: Buffer,
  format: AcceptedFormat,
  decode: SharpOptions,
  size: { width: number; height: number },
  opts: ProcessImageOptions,
): Promise<ProcessedImage> {
  // Small copy first: it decides whether the alpha channel means anything, and it feeds the
  // analysis and the thumbnail (JPEG shrink-on-load makes it far cheaper than the full decode).
  const small = await sharp(input, decode)
    .resize(SHARPNESS_SIDE, SHARPNESS_SIDE, { fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const w = small.info.width;
  const h = small.info.height;
  const n = w * h;
  const channels = small.info.channels;
  let minAlpha = 255;
  if (channels === 4) for (let i = 3; i < small.data.length; i += 4) minAlpha = Math.min(minAlpha, small.data[i]);
  const hasAlpha = channels === 4 && minAlpha < OPAQUE_ALPHA;

  const rgb = channels === 3 ? small.data : hasAlpha ? overWhite(small.data, n, channels) : dropFourth(small.data, n);
  const sharpnessValue = laplacianVariance(lumaFromRaw(rgb, w, h, 3), w, h);

  let smallMask: Uint8Array;
  const background: Rgb = estimateBackground(rgb, w, h).colour;
  let cutout: CutoutInfo;
  let fullAlpha: Uint8Array | null = null;
  if (hasAlpha) {
    smallMask = new Uint8Array(n);
    for (let i = 0; i < n; i++) smallMask[i] = small.data[i * 4 + 3];
    cutout = judgeAlpha(smallMask, w, h, opts.rendered ? 'rendered' : 'alpha');
  } else {
    // The cut-out works on the full-resolution pixels: its rim is anti-aliased at the photo's own size.
    const segmenter = chooseSegmenter(opts.segmenter ?? { kind: 'classical' });
    const key = `${createHash('sha256').update(input).digest('hex')}:${segmenter.version}`;
    let cut = cutCache.get(key);
    if (cut) {
      cutCache.delete(key); // re-inserted below: most recently used last
    } else {
      cut = opts.cutoutCacheDir ? ((await readCachedCut(opts.cutoutCacheDir, key)) ?? undefined) : undefined;
    }
    if (!cut) {
      const decoded = await sharp(input, decode).toColourspace('srgb').removeAlpha().raw().toBuffer({ resolveWithObject: true });
      cut = await segmentRgb({ data: decoded.data, width: decoded.info.width, height: decoded.info.height }, segmenter);
      if (opts.cutoutCacheDir) await writeCachedCut(opts.cutoutCacheDir, key, cut);
    }
    remember(key, cut);
    fullAlpha = cut.alpha;
    cutout = cut.cutout;
    // Point-sampled onto the small grid: only the extent and coverage are read from it.
    smallMask = new Uint8Array(n);
    for (let y = 0; y < h; y++) {
      const sy = Math.min(cut.height - 1, Math.floor(((y + 0.5) * cut.height) / h));
      for (let x = 0; x < w; x++) smallMask[y * w + x] = cut.alpha[sy * cut.width + Math.min(cut.width - 1, Math.floor(((x + 0.5) * cut.width) / w))];
    }
  }
  const extent = maskExtent(smallMask, w, h);

  const full = sharp(input, decode).toColourspace('srgb');
  if (!hasAlpha) full.removeAlpha();
  const encoder =
    format === 'jpeg'
      ? full.jpeg({ quality: 90, mozjpeg: true })
      : format === 'webp'
        ? full.webp({ quality: 90, alphaQuality: 100 })
        : full.png({ compressionLevel: 6 });

  const thumbSource = hasAlpha ? small.data : rgb;
  const [encoded, thumbnail, mask] = await Promise.all([
    encoder.toBuffer({ resolveWithObject: true }),
    sharp(thumbSource, { raw: { width: w, height: h, channels: hasAlpha ? 4 : 3 } })
      .webp({ quality: 82 })
      .toBuffer(),
    hasAlpha
      ? // Same conversion as the output, so the mask equals its alpha byte for byte (16-bit too).
        sharp(input, decode).toColourspace('srgb').extractChannel(3).png({ compressionLevel: 6 }).toBuffer()
      : sharp(fullAlpha!, { raw: { width: size.width, height: size.height, channels: 1 } })
          .toColourspace('b-w')
          .png({ compressionLevel: 6 })
          .toBuffer(),
  ]);

  const outW = encoded.info.width;
  const outH = encoded.info.height;
  const sx = outW / w;
  const sy = outH / h;
  const bbox = extent.box
    ? {
        x: Math.floor(extent.box.x0 * sx),
        y: Math.floor(extent.box.y0 * sy),
        width: Math.min(outW, Math.ceil((extent.box.x1 + 1) * sx)) - Math.floor(extent.box.x0 * sx),
        height: Math.min(outH, Math.ceil((extent.box.y1 + 1) * sy)) - Math.floor(extent.box.y0 * sy),
      }
    : { x: 0, y: 0, width: outW, height: outH };

  return {
    original: encoded.data,
    ...OUTPUT[format],
    width: outW,
    height: outH,
    bytes: encoded.data.length,
    thumbnail,
    mask,
    analysis: { background: hex(background), hasAlpha, coverage: extent.coverage, bbox, sharpness: sharpnessValue, cutout },
  };
}

function dropFourth(data: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    out[i * 3] = data[i * 4];
    out[i * 3 + 1] = data[i * 4 + 1];
    out[i * 3 + 2] = data[i * 4 + 2];
  }
  return out;
}
