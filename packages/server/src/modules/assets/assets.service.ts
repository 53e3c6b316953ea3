import type { Deps } from '../../deps.js';
import { AppError, notFound, validationFailed } from '../../core/errors.js';
import type { Effect } from '../../http/idempotency.js';
import { inTransaction } from '../../platform/db/index.js';
import { BlobNotFoundError } from '../../platform/storage/types.js';
import type { Principal } from '../../core/principal.js';
import { modelReplacementQueued, productChanged } from '../products/index.js';
import { budgetsFromJson, servedQuality, type BudgetsJson } from '../products/index.js';
import { findProduct, updateImage as updateImageRow } from '../products/index.js';
import type { ProductRecord, StoredModel, ViewerSettings } from '../products/index.js';
import { storeModel, storedModel } from '../ingest/index.js';
import { ingestModelJob, redeliverModelJob } from '../products/index.js';
import { deleteModelFiles } from '../ingest/index.js';
import { masterKeyOf } from '../ingest/index.js';
import { mergeSettings, settingsProblem, type ImageSettingsInput } from './settings.schemas.js';
import { mergeViewerSettings, scaleHotspots, viewerSettingsProblems } from './viewer-features.schemas.js';

export async function updateImage(
  deps: Deps,
  principal: Principal,
  productId: string,
  imageId: string,
  body: { settings?: ImageSettingsInput; position?: number },
): Promise<ProductRecord> {
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    const product = await findProduct(trx, productId, principal.orgIds);
    if (!product) throw notFound('product');
    const image = product.images.find((i) => i.id === imageId);
    if (!image) throw notFound('image');
    if (body.settings) {
      const merged = mergeSettings(image.settings as ImageSettingsInput, body.settings);
      const problem = settingsProblem(merged);
      if (problem) throw validationFailed([{ path: 'body.settings', message: problem }]);
      // New settings make a new finished image: its compliance is measured again when it is finished.
      await updateImageRow(trx, imageId, { settings: JSON.stringify(merged), compliance: null, channel_ready: null, updated_at: at });
    }
    if (body.position !== undefined) {
      // Positions stay a dense 0…n-1 sequence: the image moves, the others close up around it.
      const order = product.images.filter((i) => i.id !== imageId);
      order.splice(Math.min(body.position, order.length), 0, image);
      for (const [position, img] of order.entries()) {
        if (img.position !== position) await updateImageRow(trx, img.id, { position, updated_at: at });
      }
    }
    await productChanged(deps, trx, productId, {}, at);
    return (await findProduct(trx, productId, [product.orgId]))!;
  });
}

/** Viewer settings apply at once; a new model_url is re-ingested in a job while the current model stays served. */
export async function updateModel(
  deps: Deps,
  principal: Principal,
  productId: string,
  body: { settings?: ViewerSettings; model_url?: string; delivery_budgets?: BudgetsJson },
): Promise<ProductRecord> {
  if (body.model_url) {
    try {
      await deps.fetcher.check(body.model_url);
    } catch (err) {
      throw validationFailed([{ path: 'body.model_url', message: (err as Error).message }], 'The model URL cannot be fetched.');
    }
  }
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    const product = await findProduct(trx, productId, principal.orgIds);
    if (!product) throw notFound('product');
    let model: StoredModel | undefined;
    if (body.settings) {
      if (!product.model) throw new AppError('conflict', 'The product has no model yet.', { reason: 'no_model' });
      const problems = viewerSettingsProblems(body.settings, product.model.variants ?? []);
      if (problems.length) throw validationFailed(problems);
      model = { ...product.model, settings: mergeViewerSettings(product.model.settings, body.settings) };
    }
    if (body.delivery_budgets) {
      if (!product.model || product.modelStatus !== 'ready') throw new AppError('conflict', 'The product has no ready model to optimise.', { reason: 'model_not_ready' });
      if (body.model_url) throw validationFailed([{ path: 'body.delivery_budgets', message: 'send delivery_budgets apart from model_url: a replacement keeps the budgets the model has' }]);
      // The budgets apply at once to the record; the files follow when the job has made them from the master.
      model = { ...(model ?? product.model), deliveryBudgets: budgetsFromJson(body.delivery_budgets) };
      await deps.jobs.enqueue(trx, redeliverModelJob, { product_id: productId, master_key: masterKeyOf(product.model) });
    }
    if (body.model_url) {
      if (product.modelStatus === 'queued' || product.modelStatus === 'generating') {
        throw new AppError('conflict', 'The model is being produced; replace it when that is done.', { reason: 'generating' });
      }
      // The job carries the new URL and the model it replaces, so it imports this file and no other.
      const current = (await findProduct(trx, productId, [product.orgId]))!;
      await modelReplacementQueued(deps, trx, current);
      await deps.jobs.enqueue(trx, ingestModelJob, { product_id: productId, model_url: body.model_url, replaces: current.modelStatus === 'ready' ? (current.model?.glbKey ?? null) : null });
    }
    await productChanged(deps, trx, productId, { model }, at);
    return (await findProduct(trx, productId, [product.orgId]))!;
  });
}

/**
 * Rewrites the GLB and USDZ at a new scale. The new version is stored under new keys before the
 * record points at it, so the previous model keeps being served until then; its files go afterwards.
 */
export async function rescale(
  deps: Deps,
  principal: Principal,
  productId: string,
  body: { scale?: number; dimensions?: { width?: number; height?: number; depth?: number } },
  effect?: Effect<ProductRecord>,
): Promise<ProductRecord> {
  const given = (body.scale !== undefined ? 1 : 0) + (body.dimensions ? 1 : 0);
  const dims = body.dimensions ? Object.keys(body.dimensions).filter((k) => (body.dimensions as Record<string, unknown>)[k] !== undefined) : [];
  if (given !== 1 || (body.dimensions && dims.length !== 1)) {
    throw validationFailed([{ path: 'body', message: 'give either scale, or dimensions with exactly one of width, height, depth (metres)' }]);
  }
  const product = await findProduct(deps.database.db, productId, principal.orgIds);
  if (!product) throw notFound('product');
  if (product.modelStatus !== 'ready' || !product.model) throw new AppError('conflict', 'The product has no ready model to rescale.', { reason: 'model_not_ready' });
  const previous = product.model;
  // Scaled from the master, never from a delivery, so nothing simplified is simplified again.
  const glb = await deps.storage.getBuffer(masterKeyOf(previous)).catch((err) => {
    if (err instanceof BlobNotFoundError) throw new AppError('conflict', 'The model file is missing from storage; replace the model.', { reason: 'model_file_missing' });
    throw err;
  });
  const result = await deps.media.run('model.rescale', { glb, scale: body.scale ?? (body.dimensions as { width?: number; height?: number; depth?: number }) });
  // The rescaled master is optimised again, with the model's own budgets.
  const keys = await storeModel(deps, product, result, previous.deliveryBudgets);
  const at = deps.clock.now().toISOString();
  const updated = await inTransaction(deps.database.db, async (trx) => {
    const current = await findProduct(trx, productId, [product.orgId]);
    if (!current?.model || current.model.glbKey !== previous.glbKey) {
      throw new AppError('conflict', 'The model changed during the rescale; try again.', { reason: 'model_changed' });
    }
    // The model keeps how it was made; its size is now the one the caller gave.
    const quality = servedQuality(current.model);
    const model = { ...storedModel(keys, result, current.model, current.model.origin), quality: quality && { ...quality, scale_source: 'given' as const } };
    // Hotspots sit on the model's surface: they move with it.
    const factor = current.model.dimensions && result.dimensions ? rescaleFactor(current.model.dimensions, result.dimensions) : 1;
    if (model.settings.hotspots) model.settings = { ...model.settings, hotspots: scaleHotspots(model.settings.hotspots, factor) };
    await productChanged(deps, trx, productId, { model }, at);
    const rescaled = (await findProduct(trx, productId, [product.orgId]))!;
    // A retried rescale must not scale twice: its idempotency record commits with the new model.
    await effect?.(trx, rescaled);
    return rescaled;
  });
  await deleteModelFiles(deps, previous);
  return updated;
}

/** The uniform factor a rescale applied, read back from the largest side (the most precise one). */
function rescaleFactor(before: { width: number; height: number; depth: number }, after: { width: number; height: number; depth: number }): number {
  const axis = (['width', 'height', 'depth'] as const).reduce((a, b) => (before[b] > before[a] ? b : a));
  return before[axis] > 0 ? after[axis] / before[axis] : 1;
}
