import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../core/errors.js';
import { readOrgs, writeOrg } from '../../core/reach.js';
import { inTransaction, isUniqueViolation } from '../../platform/db/index.js';
import type { Principal } from '../../core/principal.js';
import { emitEvent } from '../events/index.js';
import { emitProductEvent } from './products.events.js';
import { purgeProductFilesJob } from './products.job-defs.js';
import { statusSet } from './products.lifecycle.js';
import * as rows from './products.repo.js';
import type { Executor } from '../../db.js';
import type { NewImage } from './products.types.js';
import type { ImageRow } from './products.repo.js';
import {
  deleteProductRows,
  listProducts,
  replaceTags,
  tagCounts,
  updateProductRow,
  type ProductFilter,
} from './products.repo.js';
import type { ProductRecord, ProductStatus } from './products.types.js';

export interface ListQuery {
  limit: number;
  offset: number;
  org_id?: string;
  scope?: 'all';
  tag?: string[];
  tag_match?: 'all' | 'any';
  status?: string[];
  model_status?: string[];
  q?: string;
  custom_id?: string;
  ids?: string[];
  channel_ready?: boolean;
}

export function filterFrom(principal: Principal, q: ListQuery): ProductFilter {
  return {
    orgIds: readOrgs(principal, q),
    tags: q.tag,
    tagMatch: q.tag_match ?? 'all',
    status: q.status,
    modelStatus: q.model_status,
    q: q.q,
    customId: q.custom_id,
    ids: q.ids,
    channelReady: q.channel_ready,
  };
}

export async function listProductsFor(deps: Deps, principal: Principal, q: ListQuery) {
  return listProducts(deps.database.db, filterFrom(principal, q), q);
}

export async function getProduct(deps: Deps, principal: Principal, id: string): Promise<ProductRecord> {
  const product = await findProduct(deps.database.db, id, principal.orgIds);
  if (!product) throw notFound('product');
  return product;
}

const duplicate = (customId: string) =>
  new AppError('conflict', `A product with custom_id "${customId}" already exists.`, { reason: 'duplicate_custom_id', custom_id: customId });

export async function updateProduct(
  deps: Deps,
  principal: Principal,
  id: string,
  body: { title?: string | null; custom_id?: string | null; tags?: string[] },
): Promise<ProductRecord> {
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    const product = await findProduct(trx, id, principal.orgIds);
    if (!product) throw notFound('product');
    const tags = body.tags !== undefined ? normaliseTags(body.tags) : undefined;
    try {
      await updateProductRow(trx, id, {
        ...(body.title !== undefined && { title: body.title }),
        ...(body.custom_id !== undefined && { custom_id: body.custom_id }),
        ...(tags && { tags: JSON.stringify(tags) }),
        updated_at: at,
      });
    } catch (err) {
      if (isUniqueViolation(err) && body.custom_id) throw duplicate(body.custom_id);
      throw err;
    }
    if (tags) await replaceTags(trx, id, product.orgId, tags);
    const updated = (await findProduct(trx, id, [product.orgId]))!;
    await emitProductEvent(trx, deps.storage, 'product.updated', id, at);
    return updated;
  });
}

/** Deletes rows, events and the files' purge job in one transaction; ids out of reach are not revealed. */
export async function deleteProducts(deps: Deps, principal: Principal, ids: string[]): Promise<string[]> {
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    const found = await trx
      .selectFrom('products')
      .select(['id', 'org_id'])
      .where('id', 'in', ids)
      .where('org_id', 'in', principal.orgIds.length ? principal.orgIds : ['-'])
      .execute();
    await deleteProductRows(trx, found.map((f) => f.id));
    for (const f of found) {
      await emitEvent(trx, f.org_id, 'product.deleted', { object: 'product', id: f.id, deleted: true }, at);
      await deps.jobs.enqueue(trx, purgeProductFilesJob, { org_id: f.org_id, product_id: f.id });
    }
    return found.map((f) => f.id);
  });
}

export async function deleteProduct(deps: Deps, principal: Principal, id: string) {
  const deleted = await deleteProducts(deps, principal, [id]);
  if (!deleted.length) throw notFound('product');
}

export interface PublishResult {
  object: 'publish_result';
  status: ProductStatus;
  updated: string[];
  refused: { id: string; reason: 'not_found' | 'model_not_ready' }[];
}

/**
 * Sets the user-set status of many products. Publishing needs a ready model; products that cannot be
 * published are listed with the reason. Unknown ids and ids out of reach read the same: not_found.
 */
export async function publishProducts(
  deps: Deps,
  principal: Principal,
  body: { ids: string[]; status?: ProductStatus; org_id?: string },
): Promise<PublishResult> {
  const status = body.status ?? 'published';
  const orgIds = body.org_id ? [writeOrg(principal, body.org_id)] : principal.orgIds;
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    const rows = await trx
      .selectFrom('products')
      .select(['id', 'org_id', 'status', 'model_status'])
      .where('id', 'in', body.ids)
      .where('org_id', 'in', orgIds.length ? orgIds : ['-'])
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    const result: PublishResult = { object: 'publish_result', status, updated: [], refused: [] };
    for (const id of [...new Set(body.ids)]) {
      const row = byId.get(id);
      if (!row) result.refused.push({ id, reason: 'not_found' });
      else if (status === 'published' && row.model_status !== 'ready') result.refused.push({ id, reason: 'model_not_ready' });
      else {
        if (row.status !== status) {
          await statusSet(trx, id, status, at);
          await emitProductEvent(trx, deps.storage, status === 'published' ? 'product.published' : 'product.updated', id, at);
        }
        result.updated.push(id);
      }
    }
    return result;
  });
}

export async function listTags(deps: Deps, principal: Principal, q: { org_id?: string; scope?: 'all'; limit: number; offset: number }) {
  return tagCounts(deps.database.db, readOrgs(principal, q), q);
}

/** Tags are trimmed and deduplicated, case kept; empty ones are refused by the schema. */
export function normaliseTags(tags: string[] | undefined): string[] {
  return [...new Set((tags ?? []).map((t) => t.trim()).filter(Boolean))];
}

// What other modules read of a product, and the image writes they ask of it (through index.ts).

/** A product by id, whichever organization it belongs to: for jobs, which carry the id they were given. */
export const loadProduct = (db: Executor, id: string) => rows.loadProduct(db, id);
/** A product of one of these organizations, or undefined. */
export const findProduct = (db: Executor, id: string, orgIds: readonly string[]) => rows.findProduct(db, id, orgIds);
/** The product's row, unread (the embed reads its fields before it builds the record). */
export const findProductRow = (db: Executor, id: string, orgIds: readonly string[]) => rows.findProductRow(db, id, orgIds);
export const toProductRecord = rows.toProductRecord;
/** The images of these products, in their order. */
export const imagesOf = (db: Executor, productIds: string[]) => rows.imagesOf(db, productIds);
/** The ids of the products a filter selects, at most `max`. */
export const productIdsMatching = (db: Executor, f: ProductFilter, max: number) => rows.productIdsMatching(db, f, max);
/** Changes an image's stored fields (a finished file, a review decision, its settings). */
export const updateImage = (db: Executor, id: string, patch: Partial<Omit<ImageRow, 'id' | 'product_id' | 'org_id'>>) => rows.updateImageRow(db, id, patch);

/**
 * Adds a job's images to a product after those it has, in the job's transaction. An image that could not be
 * used is recorded with its reason, rejected from the start.
 */
export async function addImages(trx: Executor, product: ProductRecord, images: NewImage[], at: string) {
  if (!images.length) return;
  await rows.insertImages(
    trx,
    images.map((img, i) => ({
      id: img.id,
      product_id: product.id,
      org_id: product.orgId,
      position: product.images.length + i,
      origin: img.origin,
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
  );
}
