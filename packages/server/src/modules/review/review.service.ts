import type { Deps } from '../../deps.js';
import { notFound, validationFailed } from '../../core/errors.js';
import { inTransaction } from '../../platform/db/index.js';
import type { Principal } from '../../core/principal.js';
import { mergeSettings, settingsProblem, type ImageSettingsInput } from '../assets/index.js';
import { productChanged } from '../products/index.js';
import { findProduct, updateImage } from '../products/index.js';
import type { ProductRecord, ProductStatus, ReviewStatus } from '../products/index.js';

export interface ReviewBody {
  images?: { image_id: string; decision?: ReviewStatus; settings?: ImageSettingsInput }[];
  model?: { decision: ReviewStatus };
  status?: ProductStatus;
}

/**
 * The batched review flush. Everything is validated against the product first; any problem is a 422
 * listing every bad item and nothing is applied. Then, in one transaction: image items in order (the
 * same image twice ends with the last), the model's decision, and the user-set status last.
 * It records decisions only: no image is produced here.
 */
export async function review(deps: Deps, principal: Principal, productId: string, body: ReviewBody): Promise<ProductRecord> {
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    const product = await findProduct(trx, productId, principal.orgIds);
    if (!product) throw notFound('product');
    const images = new Map(product.images.map((i) => [i.id, i]));
    const settings = new Map(product.images.map((i) => [i.id, i.settings as ImageSettingsInput]));
    const errors: { path: string; message: string }[] = [];
    (body.images ?? []).forEach((item, n) => {
      if (!images.has(item.image_id)) {
        errors.push({ path: `body.images[${n}].image_id`, message: 'is not an image of this product' });
        return;
      }
      if (item.settings) {
        const merged = mergeSettings(settings.get(item.image_id) ?? {}, item.settings);
        const problem = settingsProblem(merged);
        if (problem) errors.push({ path: `body.images[${n}].settings`, message: problem });
        settings.set(item.image_id, merged);
      }
    });
    if (body.model && !product.model) errors.push({ path: 'body.model', message: 'the product has no model to decide on' });
    if (body.status === 'published' && product.modelStatus !== 'ready') {
      errors.push({ path: 'body.status', message: 'only a product whose model is ready can be published' });
    }
    if (errors.length) throw validationFailed(errors, 'The review batch is invalid; nothing was applied.');

    for (const item of body.images ?? []) {
      const current = images.get(item.image_id)!;
      const next = {
        reviewStatus: item.decision ?? current.reviewStatus,
        settings: item.settings ? mergeSettings(current.settings as ImageSettingsInput, item.settings) : current.settings,
      };
      const remeasure = item.settings ? { compliance: null, channel_ready: null } : {};
      await updateImage(trx, item.image_id, { review_status: next.reviewStatus, settings: JSON.stringify(next.settings), ...remeasure, updated_at: at });
      images.set(item.image_id, { ...current, ...next });
    }
    const model = body.model && product.model ? { ...product.model, decision: body.model.decision } : undefined;
    const status = body.status && body.status !== product.status ? body.status : undefined;
    await productChanged(deps, trx, product.id, { model, status }, at);
    return (await findProduct(trx, product.id, [product.orgId]))!;
  });
}
