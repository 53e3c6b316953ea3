import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { circle, iou, png16, productScene, rawMask, ring, roundedRect, truthBox } from './image-fixtures.test-support.js';
import { rejection } from '../util/rejection.test-support.js';
import { isBlurry, processImage, sharpness } from './image-pipeline.js';


function colourDistance(hex: string, rgb: number[]): number {
  const v = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return Math.hypot(v[0] - rgb[0], v[1] - rgb[1], v[2] - rgb[2]);
}

describe('processImage: cut-out of opaque product photos', { timeout: 30_000 }, () => {
  it('finds a rounded product on a noisy off-white backdrop (JPEG)', async () => {
    const width = 1200;
    const height = 900;
    const { rgb, truth } = productScene(width, height, roundedRect(330, 180, 880, 760, 90));
    const jpeg = await sharp(rgb, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();

    const out = await processImage(jpeg);

    expect(out.contentType).toBe('image/jpeg');
    expect(out.ext).toBe('jpg');
    expect([out.width, out.height]).toEqual([width, height]);
    expect(out.bytes).toBe(out.original.length);
    const mask = await rawMask(out.mask);
    expect([mask.width, mask.height, mask.channels]).toEqual([width, height, 1]);
    expect(iou(mask.data, truth)).toBeGreaterThan(0.95);
    expect(colourDistance(out.analysis.background, [244, 243, 240])).toBeLessThan(4);
    expect(out.analysis.hasAlpha).toBe(false);

    const box = truthBox(truth, width);
    const { bbox } = out.analysis;
    expect(Math.abs(bbox.x - box.x)).toBeLessThan(width * 0.02);
    expect(Math.abs(bbox.y - box.y)).toBeLessThan(height * 0.02);
    expect(Math.abs(bbox.width - box.width)).toBeLessThan(width * 0.02);
    expect(Math.abs(bbox.height - box.height)).toBeLessThan(height * 0.02);
    const truthCoverage = truth.reduce((a, b) => a + b, 0) / truth.length;
    expect(Math.abs(out.analysis.coverage - truthCoverage)).toBeLessThan(0.02);
  });

  it('keeps a see-through hole open and stays PNG (ring on grey)', async () => {
    const width = 800;
    const height = 800;
    const { rgb, truth } = productScene(width, height, ring(400, 420, 260, 140), {
      background: [210, 212, 215],
      colour: [30, 90, 200],
      noise: 6,
      seed: 7,
    });
    const png = await sharp(rgb, { raw: { width, height, channels: 3 } }).png().toBuffer();

    const out = await processImage(png);

    expect(out.contentType).toBe('image/png');
    const mask = await rawMask(out.mask);
    expect(iou(mask.data, truth)).toBeGreaterThan(0.9);
    // centre of the ring is backdrop, not product
    expect(mask.data[420 * width + 400]).toBeLessThan(128);
    expect(colourDistance(out.analysis.background, [210, 212, 215])).toBeLessThan(5);
  });

  it('fills small holes inside the product (a label the colour of the backdrop)', async () => {
    const width = 600;
    const height = 600;
    const body = circle(300, 300, 200);
    const { rgb, truth } = productScene(width, height, body, { colour: [20, 120, 60], seed: 3 });
    // Paint a small backdrop-coloured label inside the product: still product.
    for (let y = 290; y < 310; y++) for (let x = 280; x < 320; x++) rgb.fill(243, (y * width + x) * 3, (y * width + x) * 3 + 3);
    const out = await processImage(await sharp(rgb, { raw: { width, height, channels: 3 } }).png().toBuffer());
    const mask = await rawMask(out.mask);
    expect(mask.data[300 * width + 300]).toBeGreaterThan(200);
    expect(iou(mask.data, truth)).toBeGreaterThan(0.95);
  });

  it('treats a frame without a uniform border as all subject', async () => {
    const noise = await sharp({
      create: { width: 400, height: 300, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
    })
      .png()
      .toBuffer();
    const out = await processImage(noise);
    expect(out.analysis.coverage).toBe(1);
    expect(out.analysis.bbox).toEqual({ x: 0, y: 0, width: 400, height: 300 });
  });
});

describe('processImage: formats, alpha and metadata', { timeout: 30_000 }, () => {
  it('keeps transparency, and the mask is the alpha channel', async () => {
    const width = 300;
    const height = 200;
    const rgba = Buffer.alloc(width * height * 4);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        rgba[i] = 20;
        rgba[i + 1] = 160;
        rgba[i + 2] = 90;
        const d = Math.hypot(x - 150, y - 100);
        rgba[i + 3] = Math.max(0, Math.min(255, Math.round((80 - d) * 8)));
      }
    }
    const png = await sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();

    const out = await processImage(png);

    expect(out.contentType).toBe('image/png');
    expect(out.analysis.hasAlpha).toBe(true);
    const meta = await sharp(out.original).metadata();
    expect(meta.hasAlpha).toBe(true);
    const mask = await rawMask(out.mask);
    expect(mask.channels).toBe(1);
    const alpha = Buffer.alloc(width * height);
    for (let i = 0; i < alpha.length; i++) alpha[i] = rgba[i * 4 + 3];
    expect(mask.data.equals(alpha)).toBe(true);
    expect(out.analysis.background).toBe('#ffffff');
    // The box and coverage count pixels at least half opaque: radius 64 around (150, 100).
    const { bbox } = out.analysis;
    expect(Math.abs(bbox.x - 86)).toBeLessThanOrEqual(2);
    expect(Math.abs(bbox.y - 36)).toBeLessThanOrEqual(2);
    expect(Math.abs(bbox.width - 129)).toBeLessThanOrEqual(3);
    expect(Math.abs(bbox.height - 129)).toBeLessThanOrEqual(3);
    expect(out.analysis.coverage).toBeCloseTo((Math.PI * 64 * 64) / (width * height), 2);
  });

  it('brings 16-bit and grey+alpha PNGs to 8-bit sRGB with the mask equal to the output alpha', async () => {
    const deep = png16(240, 160, (x, y) => [60000, 1000, 30000, Math.hypot(x - 120, y - 80) < 50 ? 65535 : x < 40 ? 20000 : 0]);
    const grey = await sharp({ create: { width: 240, height: 160, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: { create: { width: 100, height: 80, channels: 4, background: { r: 90, g: 90, b: 90, alpha: 0.8 } } }, left: 70, top: 40 }])
      .toColourspace('b-w')
      .png()
      .toBuffer();
    expect(await sharp(deep).metadata().then((m) => [m.depth, m.channels])).toEqual(['ushort', 4]);
    expect(await sharp(grey).metadata().then((m) => [m.space, m.channels])).toEqual(['b-w', 2]);
    for (const input of [deep, grey]) {
      const out = await processImage(input);
      expect(out.analysis.hasAlpha).toBe(true);
      const meta = await sharp(out.original).metadata();
      expect([meta.space, meta.depth, meta.channels]).toEqual(['srgb', 'uchar', 4]);
      const { data } = await sharp(out.original).raw().toBuffer({ resolveWithObject: true });
      const alpha = Buffer.alloc(240 * 160);
      for (let i = 0; i < alpha.length; i++) alpha[i] = data[i * 4 + 3];
      const mask = await rawMask(out.mask);
      expect(mask.channels).toBe(1);
      expect(mask.data.equals(alpha)).toBe(true);
    }
  });

  it('drops an alpha channel that is opaque everywhere and cuts out by colour instead', async () => {
    const width = 400;
    const height = 300;
    const { rgb, truth } = productScene(width, height, circle(200, 150, 90), { seed: 11 });
    const png = await sharp(rgb, { raw: { width, height, channels: 3 } }).ensureAlpha(1).png().toBuffer();
    expect((await sharp(png).metadata()).channels).toBe(4);

    const out = await processImage(png);

    expect(out.analysis.hasAlpha).toBe(false);
    expect((await sharp(out.original).metadata()).channels).toBe(3);
    expect(iou((await rawMask(out.mask)).data, truth)).toBeGreaterThan(0.9);
  });

  it('applies EXIF orientation, then strips EXIF, GPS, XMP and ICC', async () => {
    // 300x200 stored, red left half / blue right half; orientation 6 = rotate 90° clockwise.
    const left = await sharp({ create: { width: 150, height: 200, channels: 3, background: '#ff0000' } }).png().toBuffer();
    const jpeg = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#0000ff' } })
      .composite([{ input: left, left: 0, top: 0 }])
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExifMerge({ IFD0: { Make: 'Plinth', Model: 'Test' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 0/1' } })
      .withIccProfile('p3')
      .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>')
      .toBuffer();
    const before = await sharp(jpeg).metadata();
    expect(before.orientation).toBe(6);
    expect(before.exif).toBeDefined();
    expect(before.hasProfile).toBe(true);

    const out = await processImage(jpeg);

    expect([out.width, out.height]).toEqual([200, 300]);
    const meta = await sharp(out.original).metadata();
    expect([meta.width, meta.height]).toEqual([200, 300]);
    expect(meta.orientation).toBeUndefined();
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(meta.hasProfile).toBe(false);
    const { data } = await sharp(out.original).raw().toBuffer({ resolveWithObject: true });
    const px = (x: number, y: number) => [...data.subarray((y * 200 + x) * 3, (y * 200 + x) * 3 + 3)];
    // After a clockwise quarter turn the former left half (red) is on top.
    expect(px(100, 40)[0]).toBeGreaterThan(200);
    expect(px(100, 40)[2]).toBeLessThan(60);
    expect(px(100, 260)[2]).toBeGreaterThan(200);
    expect(px(100, 260)[0]).toBeLessThan(60);
    const mask = await rawMask(out.mask);
    expect([mask.width, mask.height]).toEqual([200, 300]);
  });

  it('turns an animated GIF into a PNG of its first frame', async () => {
    const frame = (colour: string) =>
      sharp({ create: { width: 120, height: 90, channels: 3, background: colour } }).raw().toBuffer();
    const frames = Buffer.concat([await frame('#ff0000'), await frame('#00ff00'), await frame('#0000ff')]);
    const gif = await sharp(frames, { raw: { width: 120, height: 270, channels: 3, pageHeight: 90 } }).gif().toBuffer();
    expect((await sharp(gif).metadata()).pages).toBe(3);

    const out = await processImage(gif);

    expect(out.contentType).toBe('image/png');
    expect(out.ext).toBe('png');
    expect([out.width, out.height]).toEqual([120, 90]);
    const { data, info } = await sharp(out.original).raw().toBuffer({ resolveWithObject: true });
    expect(info.height).toBe(90);
    expect([data[0], data[1], data[2]]).toEqual([255, 0, 0]);
  });

  it('keeps WebP as WebP and turns AVIF into PNG', async () => {
    const { rgb } = productScene(320, 240, circle(160, 120, 70), { seed: 5 });
    const raw = { raw: { width: 320, height: 240, channels: 3 as const } };
    const webp = await processImage(await sharp(rgb, raw).webp().toBuffer());
    expect([webp.contentType, webp.ext]).toEqual(['image/webp', 'webp']);
    expect((await sharp(webp.original).metadata()).format).toBe('webp');
    const avif = await processImage(await sharp(rgb, raw).avif({ quality: 70 }).toBuffer());
    expect([avif.contentType, avif.ext]).toEqual(['image/png', 'png']);
    expect((await sharp(avif.original).metadata()).format).toBe('png');
    expect(avif.analysis.coverage).toBeGreaterThan(0.15);
  });

  it('makes a WebP thumbnail with longest side 512 and never enlarges', async () => {
    const big = await sharp({ create: { width: 1600, height: 900, channels: 3, background: '#ddeeff' } }).jpeg().toBuffer();
    const thumb = await sharp((await processImage(big)).thumbnail).metadata();
    expect([thumb.format, thumb.width, thumb.height]).toEqual(['webp', 512, 288]);

    const small = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#ddeeff' } }).png().toBuffer();
    const smallThumb = await sharp((await processImage(small)).thumbnail).metadata();
    expect([smallThumb.width, smallThumb.height]).toEqual([300, 200]);
  });
});

describe('processImage: refusals', { timeout: 30_000 }, () => {
  let huge: Buffer;
  beforeAll(async () => {
    // Cheap to store (a uniform image compresses to ~200 kB) but 196 megapixels once decoded.
    huge = await sharp({ create: { width: 14000, height: 14000, channels: 3, background: '#ffffff' } })
      .toColourspace('b-w')
      .png({ compressionLevel: 9 })
      .toBuffer();
  }, 60_000);

  it('refuses a 14000×14000 PNG from its header, without decoding it', async () => {
    expect(huge.length).toBeLessThan(1_000_000);
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const err = await rejection(processImage(huge));
    const elapsed = performance.now() - started;
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    console.log(`14000x14000 PNG rejected in ${elapsed.toFixed(1)} ms, RSS +${(rssGrowth / 1e6).toFixed(1)} MB`);
    expect(err.reason).toBe('too_many_pixels');
    expect(err.details).toMatchObject({ width: 14000, height: 14000 });
    // A decode would need ≥ 196 MB for the greyscale pixels alone.
    expect(rssGrowth).toBeLessThan(50e6);
  });

  it('honours a custom pixel limit and minimum side', async () => {
    const img = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#808080' } }).png().toBuffer();
    expect((await rejection(processImage(img, { maxPixels: 50_000 }))).reason).toBe('too_many_pixels');
    expect((await rejection(processImage(img, { minSide: 256 }))).reason).toBe('too_small');
    const tiny = await sharp({ create: { width: 40, height: 500, channels: 3, background: '#808080' } }).png().toBuffer();
    expect((await rejection(processImage(tiny))).reason).toBe('too_small');
  });

  it('refuses a truncated JPEG as corrupt', async () => {
    const jpeg = await sharp({
      create: { width: 640, height: 480, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
    })
      .jpeg()
      .toBuffer();
    const err = await rejection(processImage(jpeg.subarray(0, Math.floor(jpeg.length / 2))));
    expect(err.reason).toBe('corrupt_image');
  });

  it('refuses SVG, TIFF, PDF and arbitrary bytes by content, whatever they are called', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><rect width="400" height="400" fill="red"/></svg>');
    const tiff = await sharp({ create: { width: 100, height: 100, channels: 3, background: '#ff0000' } }).tiff().toBuffer();
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF');
    const random = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 2654435761) & 255));
    for (const input of [svg, tiff, pdf, random, Buffer.alloc(0)]) {
      expect((await rejection(processImage(input))).reason).toBe('unsupported_format');
    }
  });

  it('refuses a PNG whose header is damaged', async () => {
    const png = await sharp({ create: { width: 100, height: 100, channels: 3, background: '#ff0000' } }).png().toBuffer();
    const broken = Buffer.from(png);
    broken.fill(0, 8, 40);
    expect((await rejection(processImage(broken))).reason).toBe('corrupt_image');
  });
});

describe('sharpness', { timeout: 30_000 }, () => {
  it('scores a blurred copy far below the original and flags it as blurry', async () => {
    const { rgb } = productScene(800, 600, roundedRect(200, 150, 600, 450, 40), { noise: 2 });
    const crisp = await sharp(rgb, { raw: { width: 800, height: 600, channels: 3 } }).png().toBuffer();
    const soft = await sharp(crisp).blur(6).png().toBuffer();
    const [a, b] = [await sharpness(crisp), await sharpness(soft)];
    expect(a).toBeGreaterThan(b * 5);
    expect(await isBlurry(soft)).toBe(true);
    const processed = await processImage(crisp);
    expect(processed.analysis.sharpness).toBeCloseTo(a, 0);
  });

  it('processes a 2000×2000 JPEG photo at its full size', async () => {
    const { rgb } = productScene(2000, 2000, circle(1000, 1050, 700), { seed: 9 });
    const jpeg = await sharp(rgb, { raw: { width: 2000, height: 2000, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
    const started = performance.now();
    const out = await processImage(jpeg);
    const elapsed = performance.now() - started;
    console.log(`processImage 2000x2000 JPEG: ${elapsed.toFixed(0)} ms`);
    expect(out.width).toBe(2000);
  });
});
