import type { Transaction } from 'kysely';
import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../core/errors.js';
import type { DB } from '../../db.js';
import type { Principal } from '../../core/principal.js';
import { emitProductEvent } from './products.events.js';
import type { QuotePayload } from '../quotes/index.js';
import { chargeQuote, quote, type QuotedOrganization, type QuoteJson } from '../quotes/index.js';
import { generateModelJob, renderImagesJob } from './pipeline.job-defs.js';
import { modelQueued, rendersOrdered } from './products.lifecycle.js';
import { findProduct, updateProductRow } from './products.repo.js';
import type { CaptureInput, ProductRecord } from './products.types.js';

type OrderReason = 'no_analysis' | 'generating' | 'images_ordered' | 'model_exists' | 'model_failed';

const MESSAGES: Record<OrderReason, string> = {
  generating: 'The product is still being processed; order when it is done.',
  model_failed: 'The product\'s model failed; create the product again or import a model.',
  no_analysis: 'The product has not been analysed yet.',
  images_ordered: 'Images were already ordered for this product.',
  model_exists: 'The product already has both images and a model.',
};

function refuse(reason: OrderReason): never {
  throw new AppError('conflict', MESSAGES[reason], { reason });
}

/**
 * What the missing half is: a model for an images-only product, renders for a model-only one.
 * Refusals follow the seed's reasons, checked in the order a user would want to hear them.
 */
export function orderFor(p: ProductRecord): 'order_model' | 'order_renders' {
  if (p.modelStatus === 'queued' || p.modelStatus === 'generating' || p.imagesStatus === 'ingesting') refuse('generating');
  if (p.modelStatus === 'failed') refuse('model_failed');
  if (p.analysis !== 'done') refuse('no_analysis');
  if (p.imagesStatus === 'ordered') refuse('images_ordered');
  const hasImages = p.images.some((i) => i.storageKey !== null);
  if (p.modelStatus === 'ready' && hasImages) refuse('model_exists');
  if (p.modelStatus === 'ready') return 'order_renders';
  if (hasImages) return 'order_model';
  refuse('no_analysis');
}

export async function orderQuote(deps: Deps, principal: Principal, productId: string, body: CaptureInput = {}): Promise<QuoteJson> {
  const product = await findProduct(deps.database.db, productId, principal.orgIds);
  if (!product) throw notFound('product');
  const op = orderFor(product);
  const input: Record<string, unknown> = { product_id: product.id };
  if (op === 'order_model') {
    // The estimate scales with the photos a model is built from.
    input.views = product.images.filter((i) => i.storageKey !== null && i.origin !== 'rendered').length;
    if (body.capture) input.capture = body.capture;
    if (body.dimensions) input.dimensions = body.dimensions;
  }
  return quote(deps, { orgId: product.orgId, op, input, productId: product.id, activeProducts: 0 });
}

/** Commits an order's quote inside the commit's transaction (commit.service.ts; the token already redeemed). */
export async function commitOrder(
  deps: Deps,
  trx: Transaction<DB>,
  org: QuotedOrganization,
  payload: QuotePayload,
  at: string,
): Promise<ProductRecord> {
  const product = await findProduct(trx, payload.product!, [org.id]);
  if (!product) throw notFound('product');
  // The product may have moved on since the quote: the same refusals apply at commit.
  const op = orderFor(product);
  if (op !== payload.op) throw new AppError('quote_changed', 'The product changed since the quote; request a new quote.', { reason: 'product_changed' });
  await chargeQuote(trx, org, payload, { addsProduct: false, activeProducts: 0, ref: product.id, at });
  if (op === 'order_model') {
    const { capture, dimensions } = payload.input as CaptureInput;
    // The order's capture and size join the source, where the generation job reads them.
    if (capture || dimensions) {
      const source = { ...product.source, ...(capture && { capture }), ...(dimensions && { dimensions }) };
      await updateProductRow(trx, product.id, { source: JSON.stringify(source) });
    }
    await modelQueued(deps, trx, product);
    await deps.jobs.enqueue(trx, generateModelJob, { product_id: product.id, credits: payload.credits });
  } else {
    await rendersOrdered(deps, trx, product);
    await deps.jobs.enqueue(trx, renderImagesJob, { product_id: product.id, credits: payload.credits });
  }
  const updated = (await findProduct(trx, product.id, [org.id]))!;
  await emitProductEvent(trx, deps.storage, 'product.updated', updated.id, at);
  return updated;
}
