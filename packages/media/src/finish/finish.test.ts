import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SETTINGS,
  finishImage,
  resolveSettings,
  settingsCacheKey,
  type FinishedImage,
  type ImageSettings,
  type ImageSettingsInput,
} from './finish.js';
import type { Box as Rect } from './mask-bounds.js';

type Rgb = [number, number, number];

interface Photo {
  original: Buffer;
  mask: Buffer;
}

/**
 * A flat-coloured product on a flat backdrop, as a JPEG (or PNG) plus its
 * mask. The product is the rectangle, or the ellipse inscribed in it; a
 * feathered mask fades from 64 to 0 over `feather` px of backdrop around it,
 * as a sloppy segmentation would.
 */
async function productPhoto(
  width: number,
  height: number,
  product: Rect,
  colour: Rgb = [30, 80, 200],
  backdrop: Rgb = [170, 170, 170],
  { format = 'jpeg', ellipse = false, feather = 0 }: { format?: 'jpeg' | 'png'; ellipse?: boolean; feather?: number } = {},
): Promise<Photo> {
  const pixels = Buffer.alloc(width * height * 3);
  const mask = Buffer.alloc(width * height);
  const rx = product.width / 2;
  const ry = product.height / 2;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dx = (x + 0.5 - product.left - rx) / rx;
      const dy = (y + 0.5 - product.top - ry) / ry;
      const r = ellipse ? Math.hypot(dx, dy) : Math.max(Math.abs(dx), Math.abs(dy));
      const outside = (r - 1) * Math.min(rx, ry);
      pixels.set(r <= 1 ? colour : backdrop, (y * width + x) * 3);
      mask[y * width + x] = r <= 1 ? 255 : outside < feather ? Math.round(64 * (1 - outside / feather)) : 0;
    }
  }
  return {
    original: await sharp(pixels, { raw: { width, height, channels: 3 } })
      .toFormat(format, { quality: 95 })
      .toBuffer(),
    mask: await sharp(mask, { raw: { width, height, channels: 1 } }).toColourspace('b-w').png().toBuffer(),
  };
}

interface Decoded {
  data: Buffer;
  width: number;
  height: number;
}

async function decode(image: FinishedImage | Buffer): Promise<Decoded> {
  const input = Buffer.isBuffer(image) ? image : image.data;
  const { data, info } = await sharp(input).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function pixel(img: Decoded, x: number, y: number): [number, number, number, number] {
  const i = (Math.round(y) * img.width + Math.round(x)) * 4;
  return [img.data[i], img.data[i + 1], img.data[i + 2], img.data[i + 3]];
}

const brightness = ([r, g, b]: number[]) => r + g + b;

function corners(img: Decoded) {
  const e = 2; // a little inside, clear of any encoder edge effects
  return [pixel(img, e, e), pixel(img, img.width - 1 - e, e), pixel(img, e, img.height - 1 - e), pixel(img, img.width - 1 - e, img.height - 1 - e)];
}

/** Bounding box of the pixels that differ clearly from `background` (or are opaque, when null). */
function contentBox(img: Decoded, background: Rgb | null, tolerance = 40): Rect {
  let minX = img.width;
  let maxX = -1;
  let minY = img.height;
  let maxY = -1;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const i = (y * img.width + x) * 4;
      const differs =
        background === null
          ? img.data[i + 3] > 127
          : Math.abs(img.data[i] - background[0]) + Math.abs(img.data[i + 1] - background[1]) + Math.abs(img.data[i + 2] - background[2]) > tolerance;
      if (!differs) continue;
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
  }
  return { left: minX, top: minY, width: maxX - minX + 1, height: maxY - minY + 1 };
}

const SIZE = 400;
const WHITE: Rgb = [255, 255, 255];
// Product off-centre in its photo, so centring is actually exercised.
const photo = productPhoto(320, 240, { left: 40, top: 50, width: 120, height: 150 });
const finish = async (settings: ImageSettingsInput, size = SIZE, input?: Photo) => {
  const { original, mask } = input ?? (await photo);
  return finishImage({ original, mask, settings: resolveSettings(settings), size });
};

describe('resolveSettings', () => {
  it('fills in the defaults', () => {
    expect(resolveSettings(undefined)).toEqual(DEFAULT_SETTINGS);
    expect(resolveSettings(null)).toEqual({ preset: null, background: '#ffffff', shadow: 'soft', padding: 0.08, fill: 0.84, size: { width: 2048, height: 2048 }, format: 'jpeg' });
    expect(resolveSettings({ shadow: 'none' })).toEqual({ ...DEFAULT_SETTINGS, shadow: 'none' });
  });

  it('picks PNG for a transparent background unless told otherwise', () => {
    expect(resolveSettings({ background: 'transparent' }).format).toBe('png');
    expect(resolveSettings({ background: 'transparent', format: 'webp' }).format).toBe('webp');
    expect(() => resolveSettings({ background: 'transparent', format: 'jpeg' })).toThrow(new RangeError('jpeg cannot be transparent'));
  });

  it('normalises colours and rejects invalid values', () => {
    expect(resolveSettings({ background: '#FF00aa' }).background).toBe('#ff00aa');
    for (const bad of [
      { background: 'red' },
      { background: '#fff' },
      { background: '#12345g' },
      { shadow: 'blurry' },
      { format: 'gif' },
      { padding: -0.01 },
      { padding: 0.46 },
      { padding: Number.NaN },
    ]) {
      expect(() => resolveSettings(bad as ImageSettingsInput), JSON.stringify(bad)).toThrow(RangeError);
    }
  });
});

describe('settingsCacheKey', () => {
  const sha = 'a'.repeat(64);
  it('is stable for the same content and settings, whatever the property order', () => {
    const reordered: ImageSettings = { format: 'jpeg', size: { height: 2048, width: 2048 }, fill: 0.84, padding: 0.08, shadow: 'soft', background: '#ffffff', preset: null };
    expect(settingsCacheKey(sha, DEFAULT_SETTINGS)).toBe(settingsCacheKey(sha, reordered));
    expect(settingsCacheKey(sha, DEFAULT_SETTINGS)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with the image, every setting and the size', () => {
    const keys = new Set([
      settingsCacheKey(sha, DEFAULT_SETTINGS),
      settingsCacheKey('b'.repeat(64), DEFAULT_SETTINGS),
      settingsCacheKey(sha, DEFAULT_SETTINGS, 640),
      settingsCacheKey(sha, { ...DEFAULT_SETTINGS, background: '#000000' }),
      settingsCacheKey(sha, { ...DEFAULT_SETTINGS, shadow: 'hard' }),
      settingsCacheKey(sha, { ...DEFAULT_SETTINGS, fill: 0.8 }),
      settingsCacheKey(sha, { ...DEFAULT_SETTINGS, format: 'png' }),
      settingsCacheKey(sha, { ...DEFAULT_SETTINGS, size: { width: 2048, height: 1024 } }),
    ]);
    expect(keys.size).toBe(8);
  });
});

describe('finishImage', () => {
  it('fills the corners with the background colour', async () => {
    const img = await decode(await finish({ background: '#ff0000', shadow: 'soft' }));
    for (const [r, g, b, a] of corners(img)) {
      expect(r).toBeGreaterThan(240);
      expect(g).toBeLessThan(15);
      expect(b).toBeLessThan(15);
      expect(a).toBe(255);
    }
  });

  it('leaves a transparent background fully transparent around the product', async () => {
    const out = await finish({ background: 'transparent', shadow: 'soft' });
    expect(out.contentType).toBe('image/png');
    const img = await decode(out);
    for (const corner of corners(img)) expect(corner[3]).toBe(0);
    expect(pixel(img, SIZE / 2, SIZE / 2)[3]).toBe(255);
  });

  it('honours the output size', async () => {
    for (const size of [257, 400]) {
      const out = await finish({}, size);
      expect([out.width, out.height]).toEqual([size, size]);
      expect((await sharp(out.data).metadata()).width).toBe(size);
    }
    const { original, mask } = await photo;
    const full = await finishImage({ original, mask, settings: DEFAULT_SETTINGS });
    expect([full.width, full.height]).toEqual([2048, 2048]);
  });

  it.each([
    ['jpeg', 'image/jpeg', 'jpg'],
    ['png', 'image/png', 'png'],
    ['webp', 'image/webp', 'webp'],
  ] as const)('encodes %s', async (format, contentType, ext) => {
    const out = await finish({ format });
    expect(out.contentType).toBe(contentType);
    expect(out.ext).toBe(ext);
    expect((await sharp(out.data).metadata()).format).toBe(format);
  });

  it('is deterministic', async () => {
    for (const settings of [{}, { background: 'transparent', shadow: 'contact' as const }, { format: 'webp' as const, shadow: 'hard' as const }]) {
      const [a, b] = await Promise.all([finish(settings), finish(settings)]);
      expect(a.data.equals(b.data)).toBe(true);
    }
  });

  it.each([0, 0.08, 0.2, 0.45])('scales the product to fit inside a padding of %s and centres it', async (padding) => {
    const img = await decode(await finish({ shadow: 'none', format: 'png', padding }));
    const box = contentBox(img, WHITE);
    const expected = SIZE * (1 - 2 * padding);
    expect(Math.abs(Math.max(box.width, box.height) - expected) / expected).toBeLessThan(0.02);
    // The product is 120×150, so its aspect ratio must survive.
    expect(box.width / box.height).toBeCloseTo(120 / 150, 1);
    const right = SIZE - box.left - box.width;
    const bottom = SIZE - box.top - box.height;
    expect(Math.abs(box.left - right)).toBeLessThanOrEqual(2);
    expect(Math.abs(box.top - bottom)).toBeLessThanOrEqual(2);
  });

  it('casts a soft shadow on the floor from the product\'s base, leaning right', async () => {
    const none = await decode(await finish({ shadow: 'none', format: 'png' }));
    const soft = await decode(await finish({ shadow: 'soft', format: 'png' }));
    const box = contentBox(none, WHITE);
    const gap = SIZE * 0.01;
    const underBase: [number, number] = [box.left + box.width / 2, box.top + box.height + gap];
    expect(brightness(pixel(none, ...underBase))).toBe(765);
    expect(brightness(pixel(soft, ...underBase))).toBeLessThan(765 - 45);
    // Leaning away from the light: more shadow right of the base than left of it.
    const right: [number, number] = [box.left + box.width + gap, box.top + box.height + gap];
    const left: [number, number] = [box.left - gap, box.top + box.height + gap];
    expect(brightness(pixel(soft, ...right))).toBeLessThan(brightness(pixel(soft, ...left)));
    // Cast on the floor from the footprint, not a box behind the product: nothing beside it at mid-height, or above it.
    expect(brightness(pixel(soft, box.left + box.width + 3 * gap, box.top + box.height / 2))).toBeGreaterThan(765 - 6);
    expect(brightness(pixel(soft, box.left - 3 * gap, box.top - 3 * gap))).toBeGreaterThan(765 - 15);
    for (const corner of corners(soft)) expect(brightness(corner)).toBeGreaterThan(765 - 6);
  });

  it('casts a darker, tighter hard shadow', async () => {
    const soft = await decode(await finish({ shadow: 'soft', format: 'png' }));
    const hard = await decode(await finish({ shadow: 'hard', format: 'png' }));
    const box = contentBox(await decode(await finish({ shadow: 'none', format: 'png' })), WHITE);
    const near: [number, number] = [box.left + box.width / 2, box.top + box.height + 3];
    expect(brightness(pixel(hard, ...near))).toBeLessThan(brightness(pixel(soft, ...near)) - 30);
    const far: [number, number] = [box.left + box.width / 2, box.top + box.height + SIZE * 0.06];
    expect(brightness(pixel(hard, ...far))).toBeGreaterThanOrEqual(brightness(pixel(soft, ...far)));
  });

  it('puts a contact shadow on the ground under the product', async () => {
    const none = await decode(await finish({ shadow: 'none', format: 'png' }));
    const contact = await decode(await finish({ shadow: 'contact', format: 'png' }));
    const box = contentBox(none, WHITE);
    const centreX = box.left + box.width / 2;
    const under = box.top + box.height + SIZE * 0.008;
    expect(brightness(pixel(contact, centreX, under))).toBeLessThan(brightness(pixel(none, centreX, under)) - 45);
    // Darkest at the centre, fading towards the ends of the ellipse.
    expect(brightness(pixel(contact, centreX, under))).toBeLessThan(brightness(pixel(contact, box.left + 4, under)));
    // Nothing beside or above the product.
    expect(brightness(pixel(contact, box.left + box.width + SIZE * 0.05, box.top + box.height / 2))).toBe(765);
  });

  it('uses the alpha channel of an original that already has one', async () => {
    const width = 200;
    const height = 160;
    const rgba = Buffer.alloc(width * height * 4);
    for (let y = 30; y < 130; y++) for (let x = 120; x < 170; x++) rgba.set([200, 40, 40, 255], (y * width + x) * 4);
    const original = await sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
    const out = await finishImage({ original, mask: null, settings: resolveSettings({ background: 'transparent', shadow: 'none' }), size: SIZE });
    const img = await decode(out);
    const box = contentBox(img, null);
    expect(Math.abs(box.height - SIZE * (1 - 2 * 0.08))).toBeLessThan(SIZE * 0.02);
    expect(box.width / box.height).toBeCloseTo(50 / 100, 1);
    const [r, g, b, a] = pixel(img, SIZE / 2, SIZE / 2);
    expect([r, g, b, a]).toEqual([200, 40, 40, 255]);
  });

  it("keeps the photo's backdrop out of the product's edges", async () => {
    // Red round product on a green backdrop, finished over white: green shows
    // as green > blue. Round, so the backdrop is inside the crop; lossless, as
    // JPEG chroma subsampling smears colours by itself.
    const product = { left: 60, top: 60, width: 90, height: 110 };
    const greenExcess = async (feather: number) => {
      const input = await productPhoto(240, 240, product, [255, 0, 0], [0, 255, 0], { format: 'png', ellipse: true, feather });
      const img = await decode(await finish({ shadow: 'none', format: 'png', background: '#ffffff' }, 331, input));
      let worst = 0;
      for (let i = 0; i < img.data.length; i += 4) worst = Math.max(worst, img.data[i + 1] - img.data[i + 2]);
      return worst;
    };
    // A hard mask: none at all, up to rounding.
    expect(await greenExcess(0)).toBeLessThanOrEqual(2);
    // A feathered mask lets in at most the 25% of backdrop it asks for (64/255
    // of 255); resampling straight instead of premultiplied colour would smear
    // that green at full strength into the edge (well over 100).
    expect(await greenExcess(3)).toBeLessThan(75);
  });

  it('follows the EXIF orientation of the original', async () => {
    const upright = await productPhoto(120, 200, { left: 20, top: 40, width: 40, height: 120 });
    // Store the pixels turned a quarter-turn back and tag them to be turned upright on display.
    const stored = await sharp(upright.original).rotate(270).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const out = await finishImage({ original: stored, mask: upright.mask, settings: resolveSettings({ shadow: 'none' }), size: SIZE });
    const box = contentBox(await decode(out), WHITE);
    expect(box.height).toBeGreaterThan(box.width * 2.5);
  });

  it('rejects unusable input', async () => {
    const { original, mask } = await photo;
    const settings = DEFAULT_SETTINGS;
    const emptyMask = await sharp(Buffer.alloc(320 * 240), { raw: { width: 320, height: 240, channels: 1 } }).png().toBuffer();
    const smallMask = await sharp(Buffer.alloc(32 * 24, 255), { raw: { width: 32, height: 24, channels: 1 } }).png().toBuffer();
    await expect(finishImage({ original, mask: null, settings })).rejects.toThrow(/mask is required/);
    await expect(finishImage({ original, mask: emptyMask, settings })).rejects.toThrow(/no product/);
    await expect(finishImage({ original, mask: smallMask, settings })).rejects.toThrow(/does not match|but the original/);
    await expect(finishImage({ original, mask, settings, size: 8 })).rejects.toThrow(RangeError);
    await expect(finishImage({ original, mask, settings, size: 100.5 })).rejects.toThrow(RangeError);
  });
});
