import type { Selectable } from 'kysely';
import type { Deps } from '../../deps.js';
import { AppError } from '../../core/errors.js';
import type { DB, Executor } from '../../db.js';
import { refundCredits } from '../orgs/index.js';
import { emitProductEvent } from './products.events.js';
import { updateProductRow } from './products.repo.js';
import type { ModelStatus, ProblemInfo, ProductRecord, ProductStatus, StoredModel } from './products.types.js';

/**
 * The only writer of a product's state (model_status, images_status, analysis, progress, step, error)
 * and of the events that announce it. Other modules call these functions; none of them updates a
 * products row. Every change of status is checked against the table below, in one place.
 */

type ImagesStatus = ProductRecord['imagesStatus'];
type Analysis = ProductRecord['analysis'];
type ProductRow = Selectable<DB['products']>;
type Patch = Partial<Omit<ProductRow, 'id' | 'org_id'>>;
type LifecycleDeps = Pick<Deps, 'storage' | 'clock'>;

/**
 * Allowed moves of each status. Staying put is allowed only where listed: a ready model stays ready
 * while a replacement is stored; a generation retried on a new attempt stays generating.
 * A failed model leaves `failed` only through a new order (→ queued), never straight to ready.
 */
export const MODEL_TRANSITIONS: Record<ModelStatus, readonly ModelStatus[]> = {
  none: ['queued'],
  queued: ['generating', 'ready', 'failed'],
  generating: ['generating', 'ready', 'failed'],
  ready: ['ready'],
  failed: ['queued'],
};

export const IMAGES_TRANSITIONS: Record<ImagesStatus, readonly ImagesStatus[]> = {
  none: ['ordered'],
  ingesting: ['ready', 'failed'],
  ordered: ['ready', 'failed'],
  ready: [],
  failed: ['ordered'],
};

export const ANALYSIS_TRANSITIONS: Record<Analysis, readonly Analysis[]> = {
  none: ['pending'],
  pending: ['done', 'failed'],
  done: ['done'],
  failed: ['done', 'failed'],
};

/** A transition the table does not allow is a bug in the caller, never a user error: 500, logged. */
export function assertTransition<S extends string>(what: string, table: Record<S, readonly S[]>, from: S, to: S): void {
  if (!table[from]?.includes(to)) {
    throw new AppError('internal_error', `Refused product transition: ${what} ${from} → ${to}.`, { reason: 'refused_transition', field: what, from, to });
  }
}

export const isModelInFlight = (p: Pick<ProductRecord, 'modelStatus'>) => p.modelStatus === 'queued' || p.modelStatus === 'generating';
export const isImagesInFlight = (p: Pick<ProductRecord, 'imagesStatus'>) => p.imagesStatus === 'ingesting' || p.imagesStatus === 'ordered';

/**
 * Writes a change of state when the product is still in the state the caller read; returns false
 * when another writer moved it meanwhile, so the caller's view was stale and nothing was written.
 */
async function transition(
  trx: Executor,
  p: ProductRecord,
  to: { model?: ModelStatus; images?: ImagesStatus; analysis?: Analysis },
  patch: Patch,
): Promise<boolean> {
  if (to.model) assertTransition('model_status', MODEL_TRANSITIONS, p.modelStatus, to.model);
  if (to.images) assertTransition('images_status', IMAGES_TRANSITIONS, p.imagesStatus, to.images);
  if (to.analysis && to.analysis !== p.analysis) assertTransition('analysis', ANALYSIS_TRANSITIONS, p.analysis, to.analysis);
  const result = await trx
    .updateTable('products')
    .set({
      ...patch,
      ...(to.model && { model_status: to.model }),
      ...(to.images && { images_status: to.images }),
      ...(to.analysis && { analysis: to.analysis }),
    })
    .where('id', '=', p.id)
    .where('model_status', '=', p.modelStatus)
    .where('images_status', '=', p.imagesStatus)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

const now = (deps: LifecycleDeps) => deps.clock.now().toISOString();
const problemText = (e: ProblemInfo) => JSON.stringify({ code: e.code, message: e.message });

/** A generation or render that will not happen gives its credits back through the ledger. */
async function refund(trx: Executor, p: ProductRecord, credits: number, at: string) {
  await refundCredits(trx, { orgId: p.orgId, amount: credits, ref: p.id, at });
}

/**
 * Progress of the running step. It only moves forward: a retried attempt that starts over, or a late
 * report from an attempt that lost, never takes it back; a finished or failed product (progress 100 or
 * null) is left alone. Informational, so written outside any transaction.
 */
export async function reportProgress(deps: Pick<Deps, 'database' | 'clock'>, productId: string, progress: number, step: string): Promise<void> {
  const value = Math.max(0, Math.min(100, Math.round(progress)));
  await deps.database.db
    .updateTable('products')
    .set({ progress: value, step, updated_at: deps.clock.now().toISOString() })
    .where('id', '=', productId)
    .where('progress', 'is not', null)
    .where('progress', '<=', value)
    .where('progress', '<', 100)
    .execute();
}

/** A product page named the product and the user gave no title: the page's title is used. */
export async function titleFound(deps: Pick<Deps, 'database' | 'clock'>, productId: string, title: string): Promise<void> {
  await deps.database.db
    .updateTable('products')
    .set({ title: title.slice(0, 500), updated_at: deps.clock.now().toISOString() })
    .where('id', '=', productId)
    .where('title', 'is', null)
    .execute();
}

// ── Images ─────────────────────────────────────────────────────────────────────────────────────────

/** Ingestion stored at least one usable image. With a model ordered, the generation comes next. */
export async function imagesIngested(deps: LifecycleDeps, trx: Executor, p: ProductRecord, thumbnailKey: string | null): Promise<boolean> {
  const at = now(deps);
  const ok = await transition(trx, p, { images: 'ready', analysis: 'done' }, {
    thumbnail_key: p.thumbnailKey ?? thumbnailKey,
    progress: p.generateModel ? 0 : 100,
    step: p.generateModel ? 'queued_for_generation' : 'done',
    error: null,
    updated_at: at,
  });
  if (ok) await emitProductEvent(trx, deps.storage, 'product.images.ready', p.id, at);
  return ok;
}

/**
 * Ingestion or renders failed for good. An ingestion failure also fails the model that was to be built
 * from the images, refunding its credits; a render order refunds its own.
 */
export async function imagesFailed(deps: LifecycleDeps, trx: Executor, p: ProductRecord, error: ProblemInfo, credits: number): Promise<boolean> {
  if (!isImagesInFlight(p)) return false;
  const at = now(deps);
  const ingesting = p.imagesStatus === 'ingesting';
  const failModelToo = ingesting && p.generateModel && isModelInFlight(p);
  // One error field: when the model fails with the images, it says why there is no model.
  const shown = failModelToo ? { code: 'no_usable_images', message: error.message } : error;
  const ok = await transition(trx, p, { images: 'failed', ...(ingesting && { analysis: 'failed' as const }), ...(failModelToo && { model: 'failed' as const }) }, {
    error: problemText(shown),
    step: 'failed',
    progress: null,
    updated_at: at,
  });
  if (!ok) return false;
  await refund(trx, p, credits, at);
  if (failModelToo) await emitProductEvent(trx, deps.storage, 'product.model.failed', p.id, at);
  else await emitProductEvent(trx, deps.storage, 'product.updated', p.id, at);
  return true;
}

/** Renders of a model-only product were ordered (credits already debited by the caller). */
export async function rendersOrdered(deps: LifecycleDeps, trx: Executor, p: ProductRecord): Promise<void> {
  await transition(trx, p, { images: 'ordered' }, { progress: 0, step: 'queued', error: null, updated_at: now(deps) });
}

/** Renders stored; a model-only product's thumbnail is its first render. */
export async function rendersReady(deps: LifecycleDeps, trx: Executor, p: ProductRecord, thumbnailKey: string | null): Promise<boolean> {
  const at = now(deps);
  const ok = await transition(trx, p, { images: 'ready' }, {
    thumbnail_key: p.thumbnailKey ?? thumbnailKey,
    progress: 100,
    step: 'done',
    error: null,
    updated_at: at,
  });
  if (ok) await emitProductEvent(trx, deps.storage, 'product.images.ready', p.id, at);
  return ok;
}

// ── Model ──────────────────────────────────────────────────────────────────────────────────────────

/** A model was ordered for an images-only product (credits already debited by the caller). */
export async function modelQueued(deps: LifecycleDeps, trx: Executor, p: ProductRecord): Promise<void> {
  await transition(trx, p, { model: 'queued' }, { generate_model: 1, progress: 0, step: 'queued', error: null, updated_at: now(deps) });
}

/**
 * A new model file was asked for (PATCH …/model {model_url}). A ready model stays ready and served
 * until the new one is stored; a product without one (none, failed) queues the import.
 */
export async function modelReplacementQueued(deps: LifecycleDeps, trx: Executor, p: ProductRecord): Promise<void> {
  const to: ModelStatus = p.modelStatus === 'ready' ? 'ready' : 'queued';
  const ok = await transition(trx, p, { model: to }, { progress: 0, step: 'replacing_model', error: null, updated_at: now(deps) });
  if (!ok) throw new AppError('conflict', 'The product changed meanwhile; try again.', { reason: 'product_changed' });
}

/** A generation attempt started. A retry keeps the progress reached so far. */
export async function modelGenerating(deps: LifecycleDeps, trx: Executor, p: ProductRecord): Promise<boolean> {
  const restart = p.modelStatus === 'generating';
  return transition(trx, p, { model: 'generating' }, {
    ...(restart ? {} : { progress: 0 }),
    step: 'loading_views',
    updated_at: now(deps),
  });
}

/**
 * A model (imported, generated or a replacement) is stored and becomes the product's model. An import's
 * poster render becomes the thumbnail of a product that has none (a model-only product).
 */
export async function modelReady(deps: LifecycleDeps, trx: Executor, p: ProductRecord, model: StoredModel, posterKey: string | null = null): Promise<boolean> {
  const at = now(deps);
  const ok = await transition(trx, p, { model: 'ready', ...(model.origin === 'imported' && { analysis: 'done' as const }) }, {
    model: JSON.stringify(model),
    ...(posterKey && !p.thumbnailKey && { thumbnail_key: posterKey }),
    progress: 100,
    step: 'done',
    error: null,
    updated_at: at,
  });
  if (ok) await emitProductEvent(trx, deps.storage, 'product.model.ready', p.id, at);
  return ok;
}

/**
 * The model will not be made: failed with a reason, and the credits paid for it refunded in the same
 * transaction. A product no longer waiting for a model is left alone (its failure was already recorded).
 */
export async function modelFailed(deps: LifecycleDeps, trx: Executor, p: ProductRecord, error: ProblemInfo, credits: number): Promise<boolean> {
  if (!isModelInFlight(p)) return false;
  const at = now(deps);
  const importFailed = (p.source.kind === 'model_url' || p.source.kind === 'model_path') && p.analysis === 'pending';
  const ok = await transition(trx, p, { model: 'failed', ...(importFailed && { analysis: 'failed' as const }) }, {
    error: problemText(error),
    step: 'failed',
    progress: null,
    updated_at: at,
  });
  if (!ok) return false;
  await refund(trx, p, credits, at);
  await emitProductEvent(trx, deps.storage, 'product.model.failed', p.id, at);
  return true;
}

/** A replacement of a ready model failed: the current model stays served, and the product says why. */
export async function modelReplacementFailed(deps: LifecycleDeps, trx: Executor, p: ProductRecord, error: ProblemInfo): Promise<boolean> {
  const at = now(deps);
  const ok = await transition(trx, p, { model: 'ready' }, { error: problemText(error), step: 'failed', progress: null, updated_at: at });
  if (ok) await emitProductEvent(trx, deps.storage, 'product.updated', p.id, at);
  return ok;
}

// ── Fields that are not status: the model record, the user-set status, the change time ─────────────

/**
 * Something that is not a status changed: the model record (viewer settings, review decision, rescaled
 * file), the user-set status, or the product's images. It is written and announced with product.updated,
 * and with product.published too when the change published it.
 */
export async function productChanged(
  deps: LifecycleDeps,
  trx: Executor,
  productId: string,
  change: { model?: StoredModel; status?: ProductStatus },
  at: string,
): Promise<void> {
  await updateProductRow(trx, productId, {
    updated_at: at,
    ...(change.model && { model: JSON.stringify(change.model) }),
    ...(change.status && { status: change.status, ...(change.status === 'published' && { published_at: at }) }),
  });
  await emitProductEvent(trx, deps.storage, 'product.updated', productId, at);
  if (change.status === 'published') await emitProductEvent(trx, deps.storage, 'product.published', productId, at);
}

/** The user-set status (draft, published, archived); publishing stamps published_at. */
export async function statusSet(trx: Executor, productId: string, status: ProductStatus, at: string): Promise<void> {
  await updateProductRow(trx, productId, { status, updated_at: at, ...(status === 'published' ? { published_at: at } : {}) });
}
