import sharp from 'sharp';
import type { TestApp } from './app.js';
import { CUTOUT_EMPTY_SCENES, makeCutoutScene, processImage } from '@plinth/media';
import { storeImageFiles } from '../modules/ingest/ingest.store.js';
import { addImages } from '../modules/products/products.service.js';
import { loadProduct } from '../modules/products/products.repo.js';

/** A product photo: a coloured disc on an off-white background, as a JPEG. */
export async function productPhoto(width = 640, height = 480, colour = { r: 30, g: 90, b: 200 }): Promise<Buffer> {
  const r = Math.round(Math.min(width, height) * 0.3);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="rgb(246,245,243)"/><circle cx="${width / 2}" cy="${height / 2}" r="${r}" fill="rgb(${colour.r},${colour.g},${colour.b})"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 92 }).toBuffer();
}

/** Real images (processed, stored, with masks) attached to a product, through the ingestion code's own store. */
let variant = 0;

/** Each call makes new pixels, so no two products share a content hash (the finishing cache is content-addressed). */
export async function attachRealImages(t: TestApp, productId: string, count: number): Promise<string[]> {
  const product = (await loadProduct(t.deps.database.db, productId))!;
  const stored = [];
  for (let i = 0; i < count; i++) {
    const v = variant++;
    const processed = await processImage(await productPhoto(640 + (v % 50) * 2, 480, { r: (30 + v * 37) % 200, g: (90 + v * 11) % 200, b: 200 - ((i * 30) % 150) }));
    stored.push(await storeImageFiles(t.deps, product, processed, 'fetched', null));
  }
  await addImages(t.deps.database.db, product, stored, new Date().toISOString());
  return stored.map((s) => s.id);
}

/** A photo of an empty backdrop, analysed by the real pipeline (classical segmenter): nothing to cut out, so its cut-out is `none`. */
export async function attachEmptyPhoto(t: TestApp, productId: string): Promise<string> {
  const scene = makeCutoutScene(CUTOUT_EMPTY_SCENES[0]);
  const png = await sharp(scene.image.data, { raw: { width: scene.image.width, height: scene.image.height, channels: 3 } }).png().toBuffer();
  const processed = await processImage(png, { segmenter: { kind: 'classical' } });
  const product = (await loadProduct(t.deps.database.db, productId))!;
  const stored = await storeImageFiles(t.deps, product, processed, 'uploaded', null);
  await addImages(t.deps.database.db, product, [stored], new Date().toISOString());
  return stored.id;
}

/** One given photo, cut out by the classical segmenter (fast, no model needed) and stored as ingestion stores it. */
export async function attachPhoto(t: TestApp, productId: string, photo: Buffer): Promise<string> {
  const processed = await processImage(photo, { segmenter: { kind: 'classical' } });
  const product = (await loadProduct(t.deps.database.db, productId))!;
  const stored = await storeImageFiles(t.deps, product, processed, 'uploaded', null);
  await addImages(t.deps.database.db, product, [stored], new Date().toISOString());
  return stored.id;
}
