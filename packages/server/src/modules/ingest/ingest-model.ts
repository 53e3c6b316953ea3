import type { Deps } from '../../deps.js';
import { inTransaction } from '../../platform/db/index.js';
import { isModelInFlight, modelReady, reportProgress } from '../products/index.js';
import { loadProduct } from '../products/index.js';
import type { ProductRecord, StoredModel } from '../products/index.js';
import type { ProcessedModel } from '@plinth/media';
import { isUploadRef, readUploadRef } from '../uploads/index.js';
import { browserAssetKey } from '../../platform/storage/names.js';
import { InputRejected } from './input-rejected.js';
import { deleteModelFiles, deliverModel, type DeliveredFiles } from './model-delivery.js';
import { renderPoster } from './model-poster.js';

/** What a stored model version's files are: the web GLB (`glbKey`), the USDZ, the master, the deliveries and one USDZ per variant. */
export interface StoredModelFiles extends DeliveredFiles {
  glbKey: string;
  usdzKey: string;
  usdzVariantKeys: Record<string, string>;
}

/**
 * Keeps the processed model's GLB as the master and stores its deliveries, all under new random names;
 * earlier versions stay until replaced. `overrides` are the model's own delivery budgets. Quick Look cannot
 * switch variants: each one gets its own USDZ.
 */
export async function storeModel(deps: Deps, product: ProductRecord, model: ProcessedModel, overrides?: StoredModel['deliveryBudgets']): Promise<StoredModelFiles> {
  const files = await deliverModel(deps, product, model.glb, overrides);
  const usdzVariantKeys: Record<string, string> = {};
  for (const variant of model.usdzVariants ?? []) {
    const key = browserAssetKey(product, '.usdz');
    await deps.storage.put(key, Buffer.from(variant.usdz), { contentType: 'model/vnd.usdz+zip' });
    usdzVariantKeys[variant.name] = key;
  }
  return { ...files, glbKey: files.delivery.web.key, usdzKey: files.delivery.usdz.key, usdzVariantKeys };
}

export function storedModel(files: StoredModelFiles, model: ProcessedModel, previous: StoredModel | null, origin: StoredModel['origin']): StoredModel {
  return {
    glbKey: files.glbKey,
    usdzKey: files.usdzKey,
    masterKey: files.masterKey,
    delivery: files.delivery,
    deliveryBudgets: previous?.deliveryBudgets ?? null,
    variants: model.variants ?? [],
    usdzVariantKeys: files.usdzVariantKeys,
    decision: previous?.decision ?? 'pending',
    dimensions: model.dimensions,
    // What `url` serves: the web delivery.
    triangles: files.delivery.web.triangles,
    bytes: files.delivery.web.bytes,
    settings: previous?.settings ?? {},
    origin,
    // Recomputed from each new version's size, so a rescale to a sensible size clears them.
    warnings: [...model.warnings, ...files.warnings],
  };
}

/** What a model import is for: a product waiting for its model, or a replacement of the model it has. */
export interface ModelImport {
  model_url: string;
  /** the GLB key of the model being replaced; null when the product has no model yet */
  replaces: string | null;
}

/** The product still wants this import: it waits for a model, or still has the model this one replaces. */
export const importStillWanted = (p: ProductRecord, job: ModelImport) =>
  job.replaces === null ? isModelInFlight(p) : p.modelStatus === 'ready' && p.model?.glbKey === job.replaces;

/**
 * Import of a model file: fetch (through the guarded fetcher), validate, normalise, USDZ. The URL is the
 * job's own: the product's source for a first import, the new URL for a replacement.
 */
export async function ingestModel(deps: Deps, product: ProductRecord, job: ModelImport) {
  await reportProgress(deps, product.id, 10, 'fetching_model');
  // An uploaded model is read from the organization's own uploads and may not reach for any other file.
  const fetchBytes = isUploadRef(job.model_url)
    ? async (url: string) => {
        if (url !== job.model_url) throw new InputRejected('external_uri_refused', 'An uploaded model must be one self-contained GLB file.');
        const data = await readUploadRef(deps, product.orgId, url);
        if (!data) throw new InputRejected('upload_missing', 'The uploaded model is no longer available; upload it again.');
        return data;
      }
    : (url: string) => deps.fetcher.fetch(url).then((r) => r.body);
  // The model's own URL is fetched here, so its fetch errors keep their kind (refused, timed out, …);
  // the sandboxed pipeline asks back for any external resources through the same fetchBytes.
  const data = await fetchBytes(job.model_url);
  const model = await deps.media.run('model.process_buffer', { data, baseUrl: job.model_url, options: { caps: deps.config.modelLimits } }, { fetchBytes });
  await reportProgress(deps, product.id, 80, 'storing_model');
  const keys = await storeModel(deps, product, model, product.model?.deliveryBudgets);
  // A first import of a product without photos gets one render as its poster, at no charge.
  const poster = job.replaces === null && !product.thumbnailKey ? await renderPoster(deps, product, model.glb) : null;
  const applied = await inTransaction(deps.database.db, async (trx) => {
    const current = await loadProduct(trx, product.id);
    if (!current || !importStillWanted(current, job)) return false;
    return modelReady(deps, trx, current, storedModel(keys, model, current.model, 'imported'), poster);
  });
  if (poster && !applied) await deps.storage.delete(poster).catch(() => undefined);
  // Whichever model nothing points at any more loses its files: the replaced one, or this one if unwanted.
  const orphan = applied ? (job.replaces !== null && product.model?.glbKey === job.replaces ? product.model : null) : keys;
  if (orphan) await deleteModelFiles(deps, orphan);
}
