import type { Executor } from '../../db.js';
import type { BlobStore } from '../../platform/storage/types.js';
import { emitEvent, type EventType } from '../events/index.js';
import { productJson } from './products.json.js';
import { loadProduct } from './products.repo.js';

/**
 * A product event carries the product as GET /v1/products/{id} shows it, read inside the transaction
 * that changed it, so a receiver never has to call back to learn the new state.
 */
export async function emitProductEvent(db: Executor, storage: BlobStore, type: EventType, productId: string, at: string): Promise<void> {
  const product = await loadProduct(db, productId);
  if (!product) return;
  await emitEvent(db, product.orgId, type, productJson(product, storage), at);
}
