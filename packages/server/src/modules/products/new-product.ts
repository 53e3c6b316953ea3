import type { Transaction } from 'kysely';
import type { Deps } from '../../deps.js';
import { AppError } from '../../core/errors.js';
import type { Effect } from '../../http/idempotency.js';
import { isUniqueViolation } from '../../platform/db/index.js';
import type { DB, Executor } from '../../db.js';
import { INGEST_JOBS, ingestModelJob } from './pipeline.job-defs.js';
import type { CreateInput } from '../quotes/index.js';
import { uploadRef } from '../uploads/index.js';
import { emitProductEvent } from './products.events.js';
import { normaliseTags } from './products.service.js';
import { findProduct, insertProduct } from './products.repo.js';
import type { ProductRecord, ProductSource } from './products.types.js';

/**
 * What a create and the commit of its quote share: the request's shape, the custom_id rule, and the writing of
 * the new product with its ingestion job and its event.
 */

export { normaliseTags };

export const SOURCE_FIELDS = ['image_urls', 'video_url', 'source_url', 'model_url', 'image_paths', 'model_path', 'resume_token'] as const;

export interface CreateBody {
  image_urls?: string[];
  video_url?: string;
  source_url?: string;
  model_url?: string;
  image_paths?: string[];
  model_path?: string;
  resume_token?: string;
  title?: string;
  custom_id?: string;
  tags?: string[];
  org_id?: string;
  generate_model?: boolean;
  capture?: CreateInput['capture'];
  dimensions?: CreateInput['dimensions'];
}

export async function assertCustomIdFree(db: Executor, orgId: string, customId: string | undefined) {
  if (!customId) return;
  const taken = await db.selectFrom('products').select('id').where('org_id', '=', orgId).where('custom_id', '=', customId).executeTakeFirst();
  if (taken) throw duplicateCustomId(customId);
}

export const duplicateCustomId = (customId: string) =>
  new AppError('conflict', `A product with custom_id "${customId}" already exists.`, { reason: 'duplicate_custom_id', custom_id: customId });

/** The idempotency record (when the request has a key) joins the transaction that made the product. */
export async function withEffect(trx: Transaction<DB>, product: ProductRecord, effect: Effect<ProductRecord> | undefined) {
  await effect?.(trx, product);
  return product;
}

/** The product row, its ingestion job and its event, in the caller's transaction. */
export async function writeNewProduct(
  deps: Deps,
  trx: Executor,
  p: { productId: string; orgId: string; source: ProductSource; input: CreateInput; credits: number; at: string },
): Promise<ProductRecord> {
  const isModel = p.source.kind === 'model_url' || p.source.kind === 'model_path';
  const generate = !isModel && p.input.generate_model;
  try {
    await insertProduct(trx, {
      id: p.productId,
      org_id: p.orgId,
      title: p.input.title ?? null,
      custom_id: p.input.custom_id ?? null,
      status: 'draft',
      model_status: isModel || generate ? 'queued' : 'none',
      model: null,
      thumbnail_key: null,
      tags: JSON.stringify(p.input.tags ?? []),
      source: JSON.stringify(p.source),
      generate_model: generate ? 1 : 0,
      analysis: 'pending',
      images_status: isModel ? 'none' : 'ingesting',
      progress: 0,
      step: 'queued',
      error: null,
      created_at: p.at,
      updated_at: p.at,
      published_at: null,
    });
  } catch (err) {
    if (isUniqueViolation(err) && p.input.custom_id) throw duplicateCustomId(p.input.custom_id);
    throw err;
  }
  if (p.source.kind === 'model_url' || p.source.kind === 'model_path') {
    const modelUrl = p.source.kind === 'model_url' ? p.source.model_url : uploadRef(p.source.model_path);
    await deps.jobs.enqueue(trx, ingestModelJob, { product_id: p.productId, model_url: modelUrl, replaces: null });
  } else {
    await deps.jobs.enqueue(trx, INGEST_JOBS[p.source.kind], { product_id: p.productId, generation_credits: generate ? deps.config.pricing.modelGeneration : 0 });
  }
  const product = (await findProduct(trx, p.productId, [p.orgId]))!;
  await emitProductEvent(trx, deps.storage, 'product.created', product.id, p.at);
  return product;
}
