import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Executor } from '../../platform/db/index.js';
import { newId } from '../../platform/ids.js';
import { emitProductEvent } from '../products/products.events.js';
import { addCredits } from '../orgs/orgs.repo.js';
import { updateProductRow } from '../products/products.repo.js';
import type { ImageOrigin, ProblemInfo, ProductRecord } from '../products/products.types.js';
import type { ProcessedImage } from './image-pipeline.js';

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
  const base = `${productPrefix(product)}images/${id}`;
  const keys = { original: `${base}.${processed.ext}`, mask: `${base}.mask.png`, thumb: `${base}.thumb.webp` };
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

/** Progress is informational and written outside any transaction. */
export async function reportProgress(deps: Deps, productId: string, progress: number, step: string) {
  await updateProductRow(deps.database.db, productId, { progress: Math.round(progress), step, updated_at: deps.clock.now().toISOString() });
}

/** A generation that will not happen gives its credits back through the ledger. */
export async function refundGeneration(trx: Executor, product: ProductRecord, credits: number, at: string) {
  if (credits <= 0) return;
  await addCredits(trx, { id: newId('led'), orgId: product.orgId, delta: credits, reason: 'refund', ref: product.id, at });
}

export async function failModel(deps: Deps, trx: Executor, product: ProductRecord, error: ProblemInfo, refundCredits: number, at: string) {
  await updateProductRow(trx, product.id, { model_status: 'failed', error: JSON.stringify(error), step: 'failed', progress: null, updated_at: at });
  await refundGeneration(trx, product, refundCredits, at);
  await emitProductEvent(trx, deps.storage, 'product.model.failed', product.id, at);
}
