import type { Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../platform/db/index.js';
import { productChanged } from '../products/index.js';
import { loadProduct } from '../products/index.js';
import type { StoredModel } from '../products/index.js';
import type { redeliverModelJob } from '../products/index.js';
import { deleteModelFiles, deliverModel } from './model-delivery.js';

/** The key the master of a stored model is read from: models stored before deliveries existed have only their GLB. */
export const masterKeyOf = (m: Pick<StoredModel, 'masterKey' | 'glbKey'>) => m.masterKey ?? m.glbKey;

const stillTheModel = (m: StoredModel | null | undefined, masterKey: string) => Boolean(m && masterKeyOf(m) === masterKey);

/** Runs `model.redeliver` (ingest.job-defs.ts). */
export const redeliverModelHandlers = {
  handle: async (deps: Deps, data: Static<typeof redeliverModelJob.payload>) => {
    const product = await loadProduct(deps.database.db, data.product_id);
    if (!product || product.modelStatus !== 'ready' || !stillTheModel(product.model, data.master_key)) return;
    const master = await deps.storage.getBuffer(data.master_key);
    // A model stored before deliveries existed gets its master copied to a private key; a kept master is reused.
    const files = await deliverModel(deps, product, master, product.model!.deliveryBudgets, product.model!.masterKey ?? null);
    const fresh = { glbKey: files.delivery.web.key, usdzKey: files.delivery.usdz.key, delivery: files.delivery, masterKey: product.model!.masterKey ? null : files.masterKey };
    let previous: StoredModel | null = null;
    await inTransaction(deps.database.db, async (trx) => {
      const current = await loadProduct(trx, product.id);
      if (!current?.model || current.modelStatus !== 'ready' || !stillTheModel(current.model, data.master_key)) return;
      previous = current.model;
      const model: StoredModel = {
        ...current.model,
        glbKey: fresh.glbKey,
        usdzKey: fresh.usdzKey,
        masterKey: files.masterKey,
        delivery: files.delivery,
        triangles: files.delivery.web.triangles,
        bytes: files.delivery.web.bytes,
        warnings: [...(current.model.warnings ?? []).filter((w) => w.code !== 'over_budget'), ...files.warnings],
      };
      await productChanged(deps, trx, product.id, { model }, deps.clock.now().toISOString());
    });
    // The files nothing points at any more: the old deliveries once replaced, or these if the model changed meanwhile.
    // The master and the variants' USDZ files stay: only the deliveries were made again.
    if (previous) await deleteModelFiles(deps, { ...(previous as StoredModel), masterKey: null, usdzVariantKeys: {} });
    else await deleteModelFiles(deps, fresh);
  },
};
