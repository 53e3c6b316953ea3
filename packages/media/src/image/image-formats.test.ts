import { describe, expect, it } from 'vitest';
import { rejectionFromSharpError, sniffImageFormat } from './image-formats.js';

function ftyp(major: string, ...compatible: string[]): Buffer {
  const size = 16 + compatible.length * 4;
  const box = Buffer.alloc(size + 16);
  box.writeUInt32BE(size, 0);
  box.write('ftyp', 4, 'latin1');
  box.write(major, 8, 'latin1');
  compatible.forEach((b, i) => box.write(b, 16 + i * 4, 'latin1'));
  return box;
}

describe('sniffImageFormat', () => {
  it('tells AVIF from HEIC and MP4 by their brands', () => {
    expect(sniffImageFormat(ftyp('avif', 'mif1', 'miaf'))).toBe('avif');
    expect(sniffImageFormat(ftyp('mif1', 'mif1', 'avif'))).toBe('avif');
    expect(sniffImageFormat(ftyp('avis', 'msf1'))).toBe('avif');
    expect(sniffImageFormat(ftyp('heic', 'mif1', 'heic'))).toBeNull();
    expect(sniffImageFormat(ftyp('isom', 'iso2', 'mp41'))).toBeNull();
  });

  it('recognises the other accepted signatures and nothing else', () => {
    expect(sniffImageFormat(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg');
    expect(sniffImageFormat(Buffer.from('\x89PNG\r\n\x1a\n....', 'latin1'))).toBe('png');
    expect(sniffImageFormat(Buffer.from('GIF89a....'))).toBe('gif');
    expect(sniffImageFormat(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1'))).toBe('webp');
    expect(sniffImageFormat(Buffer.from('RIFF\x10\x00\x00\x00AVI LIST', 'latin1'))).toBeNull();
    expect(sniffImageFormat(Buffer.from('II*\x00\x08\x00\x00\x00', 'latin1'))).toBeNull();
    expect(sniffImageFormat(Buffer.from('BM6\x00\x00\x00', 'latin1'))).toBeNull();
    expect(sniffImageFormat(Buffer.from([0xff, 0xd8]))).toBeNull();
  });
});

describe('rejectionFromSharpError', () => {
  it('maps libvips messages to stable reasons', () => {
    expect(rejectionFromSharpError(new Error('Input image exceeds pixel limit')).reason).toBe('too_many_pixels');
    expect(rejectionFromSharpError(new Error('Input buffer contains unsupported image format')).reason).toBe('unsupported_format');
    const corrupt = rejectionFromSharpError(new Error('VipsJpeg: premature end of JPEG image'));
    expect(corrupt.reason).toBe('corrupt_image');
    expect(corrupt.details).toEqual({ cause: 'VipsJpeg: premature end of JPEG image' });
  });
});
