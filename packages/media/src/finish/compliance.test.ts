import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { evaluateCompliance, failedCodes, type FinishMeasurements } from './compliance.js';
import { finishImage, resolveSettings, type ImageSettingsInput } from './finish.js';

/** A flat product on a grey backdrop plus its mask; `product` may touch the frame. */
async function photo(width: number, height: number, product: { left: number; top: number; width: number; height: number }, noise = false) {
  const pixels = Buffer.alloc(width * height * 3, 170);
  const mask = Buffer.alloc(width * height);
  for (let y = product.top; y < product.top + product.height; y++) {
    for (let x = product.left; x < product.left + product.width; x++) {
      const o = (y * width + x) * 3;
      if (noise) for (let c = 0; c < 3; c++) pixels[o + c] = Math.floor(Math.random() * 256);
      else pixels.set([30, 80, 200], o);
      mask[y * width + x] = 255;
    }
  }
  return {
    original: await sharp(pixels, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer(),
    mask: await sharp(mask, { raw: { width, height, channels: 1 } }).toColourspace('b-w').png().toBuffer(),
  };
}

const centred = photo(320, 240, { left: 100, top: 40, width: 120, height: 160 });
const finish = async (settings: ImageSettingsInput, input?: Awaited<typeof centred>) => finishImage({ ...(input ?? (await centred)), settings });
const failed = async (settings: ImageSettingsInput, input?: Awaited<typeof centred>, cutout = 'ok') =>
  failedCodes(evaluateCompliance((await finish(settings, input)).measurements, resolveSettings(settings).preset, cutout));

/** The outer 2% band as decoded by sharp, independently of the code under test. */
async function bandPixels(data: Buffer) {
  const { data: px, info } = await sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const bx = Math.ceil(info.width * 0.02);
  const by = Math.ceil(info.height * 0.02);
  const values: number[] = [];
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if (y >= by && y < info.height - by && x >= bx && x < info.width - bx) continue;
      const o = (y * info.width + x) * 3;
      values.push(px[o], px[o + 1], px[o + 2]);
    }
  }
  return { width: info.width, height: info.height, values };
}

describe('presets', () => {
  it('fix the canvas, fill, background and format, and explicit settings override them', () => {
    expect(resolveSettings({ preset: 'amazon_main' })).toMatchObject({ size: { width: 2000, height: 2000 }, fill: 0.88, background: '#ffffff', format: 'jpeg' });
    expect(resolveSettings({ preset: 'google_shopping' })).toMatchObject({ size: { width: 1600, height: 1600 }, fill: 0.85, format: 'jpeg' });
    expect(resolveSettings({ preset: 'ebay' })).toMatchObject({ size: { width: 1600, height: 1600 }, fill: 0.85 });
    expect(resolveSettings({ preset: 'shopify', background: '#eeeeee', format: 'webp' })).toMatchObject({ size: { width: 2048, height: 2048 }, fill: 0.84, background: '#eeeeee', format: 'webp' });
    expect(resolveSettings({ preset: 'square_1080', background: 'transparent' })).toMatchObject({ size: { width: 1080, height: 1080 }, fill: 0.8, format: 'png' });
    expect(resolveSettings({ preset: 'amazon_main', fill: 0.7, size: { width: 1000 } })).toMatchObject({ fill: 0.7, size: { width: 1000, height: 2000 } });
    // fill replaces padding; padding keeps its meaning without it
    expect(resolveSettings({ padding: 0.1, fill: 0.9 }).fill).toBe(0.9);
    expect(resolveSettings({ padding: 0.1 }).fill).toBe(0.8);
    for (const bad of [{ preset: 'etsy' }, { size: { width: 63, height: 100 } }, { size: { width: 8001, height: 100 } }, { size: { width: 100.5, height: 100 } }]) {
      expect(() => resolveSettings(bad), JSON.stringify(bad)).toThrow(RangeError);
    }
  });

  it('amazon_main makes a 2000² JPEG whose outer band decodes as exactly 255,255,255 and whose product fills 0.88', async () => {
    const out = await finish({ preset: 'amazon_main' });
    const band = await bandPixels(out.data);
    expect([band.width, band.height]).toEqual([2000, 2000]);
    expect(band.values.every((v) => v === 255)).toBe(true);
    expect(out.measurements.fill).toBeCloseTo(0.88, 3);
    expect(evaluateCompliance(out.measurements, 'amazon_main', 'ok')).toMatchObject({ preset: 'amazon_main', passed: true });
  });

  it('fits a non-square canvas on its tighter axis and keeps the shadow inside it', async () => {
    const out = await finish({ size: { width: 1200, height: 600 }, fill: 0.9, shadow: 'soft' });
    expect([out.width, out.height]).toEqual([1200, 600]);
    expect(out.measurements.fill).toBeCloseTo(0.9, 2);
    expect((await bandPixels(out.data)).values.every((v) => v === 255)).toBe(true);
  });
});

describe('compliance: each check fails when the finished image breaks it', { timeout: 60_000 }, () => {
  it('size: an explicit canvas beside the preset', async () => {
    expect(await failed({ preset: 'google_shopping', size: { width: 1000, height: 1000 } })).toEqual(['size']);
  });

  it('fill: 0.7 under amazon_main, 0.95 under google_shopping', async () => {
    expect(await failed({ preset: 'amazon_main', fill: 0.7 })).toEqual(['fill']);
    expect(await failed({ preset: 'google_shopping', fill: 0.95 })).toContain('fill');
  });

  it('background: a grey background, or a product reaching into the outer band', async () => {
    expect(await failed({ preset: 'amazon_main', background: '#f4f4f4' })).toEqual(['background']);
    expect(await failed({ preset: 'ebay', fill: 0.98, shadow: 'none' })).toEqual(['background']);
  });

  it('format: a PNG where the channel wants a JPEG', async () => {
    expect(await failed({ preset: 'square_1080', format: 'png' })).toEqual(['format']);
  });

  it('bytes: a noisy product as PNG is over Amazon\'s 10 MB', async () => {
    const noisy = await photo(2000, 2000, { left: 10, top: 10, width: 1980, height: 1980 }, true);
    const codes = await failed({ preset: 'amazon_main', format: 'png', fill: 0.98, shadow: 'none' }, noisy);
    expect(codes).toContain('bytes');
    expect(codes).toContain('format');
  });

  it('not_cropped: a product that touches the edge of its photo, with or without a preset', async () => {
    const cut = await photo(320, 240, { left: 0, top: 60, width: 150, height: 120 });
    expect(await failed({}, cut)).toEqual(['not_cropped']);
    const out = await finish({ preset: 'amazon_main' }, cut);
    const check = evaluateCompliance(out.measurements, 'amazon_main', 'ok').checks.find((c) => c.code === 'not_cropped');
    expect(check).toEqual({ code: 'not_cropped', passed: false, measured: { edges_touched: ['left'] }, required: { edges_touched: [] } });
  });

  it('cutout: an uncertain cut-out; without a preset only the generic checks are made', () => {
    const m: FinishMeasurements = { width: 10, height: 10, format: 'jpeg', bytes: 1, fill: 0.5, band: { pureWhite: 0, uniform: 0 }, edgesTouched: [] };
    const generic = evaluateCompliance(m, null, 'uncertain');
    expect(generic.checks.map((c) => c.code)).toEqual(['not_cropped', 'cutout']);
    expect(failedCodes(generic)).toEqual(['cutout']);
    expect(generic.passed).toBe(false);
    expect(evaluateCompliance(m, null, 'ok').passed).toBe(true);
  });
});

const REAL = fileURLToPath(new URL('../../../../../shared/data/cutout/products/', import.meta.url));
describe('amazon_main on real product photos with their reference masks', { timeout: 60_000 }, () => {
  const names = existsSync(REAL) ? ['0b0bd753-3094-4d4d-a888-8125acebfca9', '0c2b3e3ab26f374390c6ab3bc94262be'] : [];
  if (!names.length) it.skip(`skipped: ${REAL} is absent`, () => {});
  for (const name of names) {
    it(`${name}: passes every check`, async () => {
      const input = { original: readFileSync(`${REAL}${name}.png`), mask: readFileSync(`${REAL}${name}_mask.png`) };
      const out = await finish({ preset: 'amazon_main' }, input);
      expect((await bandPixels(out.data)).values.every((v) => v === 255)).toBe(true);
      expect(evaluateCompliance(out.measurements, 'amazon_main', 'ok')).toMatchObject({ passed: true });
    });
  }
});
