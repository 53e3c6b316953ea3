import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { newId } from '../../platform/ids.js';
import { browserAssetKey, privateProductKey } from '../../platform/storage/names.js';
import type { ImageOrigin, ProblemInfo, ProductRecord } from '../products/index.js';
import type { ProcessedImage } from '@plinth/media';

export interface StoredImage {
  id: string;
  origin: ImageOrigin;
  sourceUrl: string | null;
  processed: ProcessedImage | null;
  error: ProblemInfo | null;
  keys: { original: string; mask: string; thumb: string } | null;
  sha256: string | null;
}

/** Writes an image's files; the row comes later, in the transaction that finishes the job. */
export async function storeImageFiles(deps: Deps, product: ProductRecord, processed: ProcessedImage, origin: ImageOrigin, sourceUrl: string | null): Promise<StoredImage> {
  const id = newId('img');
  // Each file gets its own random name: knowing a thumbnail's URL must not reveal the original's.
  // A render is a finished image meant for browsers; any other original stays private.
  const original = origin === 'rendered' ? browserAssetKey(product, `.${processed.ext}`) : privateProductKey(product, 'originals', `.${processed.ext}`);
  const keys = { original, mask: browserAssetKey(product, '.mask.png'), thumb: browserAssetKey(product, '.thumb.webp') };
  await Promise.all([
    deps.storage.put(keys.original, processed.original, { contentType: processed.contentType }),
    deps.storage.put(keys.mask, processed.mask, { contentType: 'image/png' }),
    deps.storage.put(keys.thumb, processed.thumbnail, { contentType: 'image/webp' }),
  ]);
  const sha256 = createHash('sha256').update(processed.original).digest('hex');
  return { id, origin, sourceUrl, processed, error: null, keys, sha256 };
}

export function failedImage(origin: ImageOrigin, sourceUrl: string | null, error: ProblemInfo): StoredImage {
  return { id: newId('img'), origin, sourceUrl, processed: null, error, keys: null, sha256: null };
}
