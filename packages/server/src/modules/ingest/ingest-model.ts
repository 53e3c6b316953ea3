import type { Deps } from '../../deps.js';
import { inTransaction } from '../../platform/db/index.js';
import { newId } from '../../platform/ids.js';
import { emitProductEvent } from '../products/products.events.js';
import { loadProduct, updateProductRow } from '../products/products.repo.js';
import type { ProductRecord, StoredModel } from '../products/products.types.js';
import { productPrefix, reportProgress } from './ingest.store.js';
import { processModel, type ProcessedModel } from './model-pipeline.js';

/** Stores a processed model's GLB and USDZ under a new version id; earlier versions stay until replaced. */
export async function storeModel(deps: Deps, product: ProductRecord, model: ProcessedModel) {
  const version = newId('job').slice(4);
  const base = `${productPrefix(product)}model/${version}`;
  const glbKey = `${base}.glb`;
  const usdzKey = `${base}.usdz`;
  await deps.storage.put(glbKey, model.glb, { contentType: 'model/gltf-binary' });
  await deps.storage.put(usdzKey, model.usdz, { contentType: 'model/vnd.usdz+zip' });
  return { glbKey, usdzKey };
}

export function storedModel(keys: { glbKey: string; usdzKey: string }, model: ProcessedModel, previous: StoredModel | null, origin: StoredModel['origin']): StoredModel {
  return {
    glbKey: keys.glbKey,
    usdzKey: keys.usdzKey,
    decision: previous?.decision ?? 'pending',
    dimensions: model.dimensions,
    triangles: model.triangles,
    bytes: model.bytes,
    settings: previous?.settings ?? {},
    origin,
  };
}

/** Import of an existing model: fetch (through the guarded fetcher), validate, normalise, USDZ. */
export async function ingestModel(deps: Deps, product: ProductRecord) {
  if (product.source.kind !== 'model_url') throw new Error(`ingest.model got a ${product.source.kind} product`);
  await reportProgress(deps, product.id, 10, 'fetching_model');
  const model = await processModel(product.source.model_url, (url) => deps.fetcher.fetch(url).then((r) => r.body));
  await reportProgress(deps, product.id, 80, 'storing_model');
  const keys = await storeModel(deps, product, model);
  const at = deps.clock.now().toISOString();
  await inTransaction(deps.database.db, async (trx) => {
    const current = await loadProduct(trx, product.id);
    if (!current || current.modelStatus === 'ready') return;
    await updateProductRow(trx, product.id, {
      model: JSON.stringify(storedModel(keys, model, current.model, 'imported')),
      model_status: 'ready',
      analysis: 'done',
      progress: 100,
      step: 'done',
      error: null,
      updated_at: at,
    });
    await emitProductEvent(trx, deps.storage, 'product.model.ready', product.id, at);
  });
}
