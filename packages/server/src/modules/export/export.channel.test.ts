import { existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { attachPhoto } from '../../test/images.js';
import { seedProduct } from '../../test/products.js';
import { openZip } from '../../test/zip.js';

// Real product photos with reference masks (read-only, outside the repository).
const PHOTOS = join(process.cwd(), '../shared/data/cutout/products');
const present = existsSync(PHOTOS);
if (!present) console.log(`[plinth] export by channel skipped: ${PHOTOS} is absent`);

let t: TestApp;
let productId: string;
const ids: Record<'boxes' | 'carton' | 'cropped', string> = { boxes: '', carton: '', cropped: '' };

beforeAll(async () => {
  if (!present) return;
  t = await createTestApp({ PLINTH_EXPORT_SYNC_LIMIT: '24', PLINTH_SEGMENTER: 'classical' });
  productId = await seedProduct(t, t.org.org_id, { customId: 'CHANNEL-1' });
  // Scaled down so that the cut-out is quick; still the real photos.
  const boxes = await sharp(join(PHOTOS, '0b042c603ed7f9ec8165a7544dd62624.png')).resize(800).jpeg({ quality: 92 }).toBuffer();
  const carton = join(PHOTOS, '0b0bd753-3094-4d4d-a888-8125acebfca9.png');
  ids.boxes = await attachPhoto(t, productId, boxes);
  ids.carton = await attachPhoto(t, productId, await sharp(carton).resize(700).jpeg({ quality: 92 }).toBuffer());
  // The carton with its left half cut off by the frame: the product touches the photo's left edge.
  ids.cropped = await attachPhoto(t, productId, await sharp(carton).extract({ left: 510, top: 0, width: 514, height: 1024 }).resize(350).jpeg({ quality: 92 }).toBuffer());
  // Without a shadow the product's box can be read off the pixels alone.
  const review = await t.app.inject({
    method: 'POST',
    url: `/v1/products/${productId}/review`,
    headers: bearer(t.org.secret_key),
    payload: { images: [{ image_id: ids.boxes, settings: { shadow: 'none' } }] },
  });
  expect(review.statusCode).toBe(200);
}, 120_000);
afterAll(async () => t?.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: bearer(t.org.secret_key) });

interface Entry {
  path: string;
  image_id: string;
  width: number;
  height: number;
  compliance: { preset: string; passed: boolean; checks: { code: string; passed: boolean }[] };
}

/** Decodes the JPEG: is the outer 2% band exactly 255,255,255, and the bounding box of the non-white pixels. */
async function inspect(jpeg: Buffer) {
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  const band = Math.ceil(info.width * 0.02);
  let bandPure = true;
  let minX = info.width;
  let maxX = -1;
  let minY = info.height;
  let maxY = -1;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const o = (y * info.width + x) * info.channels;
      const white = data[o] === 255 && data[o + 1] === 255 && data[o + 2] === 255;
      if (!white && (x < band || y < band || x >= info.width - band || y >= info.height - band)) bandPure = false;
      if (Math.min(data[o], data[o + 1], data[o + 2]) < 245) {
        minX = Math.min(minX, x);
        maxX = Math.max(maxX, x);
        minY = Math.min(minY, y);
        maxY = Math.max(maxY, y);
      }
    }
  }
  return { jpeg: jpeg[0] === 0xff && jpeg[1] === 0xd8, width: info.width, height: info.height, bandPure, fill: Math.max(maxX - minX + 1, maxY - minY + 1) / info.width };
}

describe.runIf(present)('export by channel', { timeout: 120_000 }, () => {
  it('preset=amazon_main: 2000² JPEGs with a pure white outer band and a product filling 0.85-0.90; the cropped photo fails not_cropped', async () => {
    const res = await get(`/v1/products/export?ids=${productId}&preset=amazon_main`);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const zip = openZip(res.rawPayload);
    expect(zip.manifest).toMatchObject({ preset: 'amazon_main', strict: false });
    const entries = new Map((zip.manifest.entries as Entry[]).map((e) => [e.image_id, e]));
    expect(entries.size).toBe(3);
    for (const id of [ids.boxes, ids.carton]) {
      const entry = entries.get(id)!;
      expect(entry.compliance, JSON.stringify(entry.compliance)).toMatchObject({ preset: 'amazon_main', passed: true });
      expect(entry.compliance.checks.map((c) => c.code)).toEqual(['size', 'fill', 'background', 'format', 'bytes', 'not_cropped', 'cutout']);
      const seen = await inspect(zip.read(entry.path));
      expect(seen).toMatchObject({ jpeg: true, width: 2000, height: 2000, bandPure: true });
      expect([entry.width, entry.height]).toEqual([2000, 2000]);
      if (id === ids.boxes) {
        console.log(`[plinth] amazon_main: product box fills ${seen.fill.toFixed(3)} of the image`);
        expect(seen.fill).toBeGreaterThanOrEqual(0.85);
        expect(seen.fill).toBeLessThanOrEqual(0.9);
      }
    }
    const cropped = entries.get(ids.cropped)!;
    expect(cropped.compliance.passed).toBe(false);
    expect(cropped.compliance.checks.find((c) => c.code === 'not_cropped')?.passed).toBe(false);
    expect(zip.manifest.non_compliant).toEqual([{ product_id: productId, image_id: ids.cropped, path: cropped.path, failed: ['not_cropped'] }]);
  });

  it('strict=true leaves the failing image out with reason non_compliant', async () => {
    const zip = openZip((await get(`/v1/products/export?ids=${productId}&preset=amazon_main&strict=true`)).rawPayload);
    expect((zip.manifest.entries as Entry[]).map((e) => e.image_id).sort()).toEqual([ids.boxes, ids.carton].sort());
    expect(zip.names.some((n) => n.includes(ids.cropped))).toBe(false);
    expect(zip.manifest.skipped).toEqual([{ product_id: productId, image_id: ids.cropped, reason: 'non_compliant', image_review_status: 'pending' }]);
    expect(zip.manifest.non_compliant.map((n: { image_id: string }) => n.image_id)).toEqual([ids.cropped]);
  });

  it('an image with fill 0.7 under amazon_main fails fill; without a preset only the generic checks are made', async () => {
    const id = await seedProduct(t, t.org.org_id);
    // The boxes: the classical segmenter cuts them out right (a 500-px carton loses a dark panel, IoU 0.83: uncertain).
    const image = await attachPhoto(t, id, await sharp(join(PHOTOS, '0b042c603ed7f9ec8165a7544dd62624.png')).resize(760).jpeg({ quality: 92 }).toBuffer());
    const patch = await t.app.inject({ method: 'POST', url: `/v1/products/${id}/review`, headers: bearer(t.org.secret_key), payload: { images: [{ image_id: image, settings: { fill: 0.7 } }] } });
    expect(patch.statusCode).toBe(200);
    const zip = openZip((await get(`/v1/products/export?ids=${id}&preset=amazon_main`)).rawPayload);
    expect(zip.manifest.non_compliant).toEqual([expect.objectContaining({ image_id: image, failed: ['fill'] })]);
    const fill = (zip.manifest.entries[0] as Entry).compliance.checks.find((c) => c.code === 'fill') as unknown as { measured: number; required: unknown };
    expect(fill.measured).toBeCloseTo(0.7, 2);
    expect(fill.required).toEqual({ min: 0.85, max: 1 });

    const plain = openZip((await get(`/v1/products/export?ids=${id}`)).rawPayload);
    const entry = plain.manifest.entries[0] as Entry;
    expect(entry.compliance).toMatchObject({ preset: null, passed: true });
    expect(entry.compliance.checks.map((c) => c.code)).toEqual(['not_cropped', 'cutout']);
    expect([entry.width, entry.height]).toEqual([2048, 2048]);
  });

  it('rejects an unknown preset and a fill out of range (422)', async () => {
    expect((await get(`/v1/products/export?ids=${productId}&preset=etsy`)).statusCode).toBe(422);
    const bad = await t.app.inject({ method: 'POST', url: `/v1/products/${productId}/review`, headers: bearer(t.org.secret_key), payload: { images: [{ image_id: ids.carton, settings: { fill: 0.99 } }] } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.code).toBe('validation_failed');
  });
});
