import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Executor } from '../../db.js';
import { newId } from '../../platform/ids.js';
import { browserAssetKey, privateProductKey } from '../../platform/storage/names.js';
import type { ImageOrigin, ProblemInfo, ProductRecord } from '../products/products.types.js';
import type { ProcessedImage } from '@plinth/media';

export const productPrefix = (p: { orgId: string; id: string }) => `orgs/${p.orgId}/products/${p.id}/`;

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

export async function insertImageRows(trx: Executor, product: ProductRecord, images: StoredImage[], firstPosition: number, at: string) {
  if (!images.length) return;
  await trx
    .insertInto('images')
    .values(
      images.map((img, i) => ({
        id: img.id,
        product_id: product.id,
        org_id: product.orgId,
        position: firstPosition + i,
        origin: img.origin,
        // An image that could not be used is recorded with its reason, rejected from the start.
        review_status: img.error ? ('rejected' as const) : ('pending' as const),
        settings: '{}',
        storage_key: img.keys?.original ?? null,
        content_type: img.processed?.contentType ?? null,
        mask_key: img.keys?.mask ?? null,
        thumb_key: img.keys?.thumb ?? null,
        width: img.processed?.width ?? null,
        height: img.processed?.height ?? null,
        bytes: img.processed?.bytes ?? null,
        sha256: img.sha256,
        analysis: img.processed ? JSON.stringify(img.processed.analysis) : null,
        source_url: img.sourceUrl,
        error: img.error ? JSON.stringify(img.error) : null,
        created_at: at,
        updated_at: at,
      })),
    )
    .execute();
}
