import type { Metadata } from 'sharp';
import { MediaError } from '../errors.js';

export type AcceptedFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'gif';

/**
 * Identify the container from its leading bytes before libvips sees the data at all. libvips would
 * happily parse SVG (librsvg), PDF, TIFF and friends; refusing them up front keeps those parsers'
 * attack surface away from untrusted uploads, and names never matter, only content.
 */
export function sniffImageFormat(input: Uint8Array): AcceptedFormat | null {
  const ascii = (start: number, end: number) => Buffer.from(input.subarray(start, end)).toString('latin1');
  if (input.length >= 3 && input[0] === 0xff && input[1] === 0xd8 && input[2] === 0xff) return 'jpeg';
  if (input.length >= 8 && ascii(0, 8) === '\x89PNG\r\n\x1a\n') return 'png';
  if (input.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'gif';
  if (input.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (input.length >= 16 && ascii(4, 8) === 'ftyp') {
    // ISO-BMFF is shared by AVIF, HEIC and MP4; only the brands tell them apart.
    const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
    const boxSize = Math.min(view.getUint32(0), input.length, 256);
    const brands = [ascii(8, 12)];
    for (let p = 16; p + 4 <= boxSize; p += 4) brands.push(ascii(p, p + 4));
    if (brands.includes('avif') || brands.includes('avis')) return 'avif';
  }
  return null;
}

/** The decoder libvips reports must agree with the sniffed container. */
export function metadataMatches(sniffed: AcceptedFormat, meta: Metadata): boolean {
  if (sniffed === 'avif') return meta.format === 'heif' && meta.compression === 'av1';
  return meta.format === sniffed;
}

/** libvips error text is the only signal we get; classify it into a stable public reason. */
export function rejectionFromSharpError(err: unknown): MediaError {
  const message = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(message)) {
    return new MediaError('too_many_pixels', 'The image has more pixels than allowed.', { cause: message });
  }
  if (/unsupported image format/i.test(message)) {
    return new MediaError('unsupported_format', 'The image format is not supported.', { cause: message });
  }
  return new MediaError('corrupt_image', 'The image data is corrupt or truncated.', { cause: message });
}
