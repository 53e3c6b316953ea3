import type { Deps } from '../../deps.js';
import { AppError } from '../../core/errors.js';
import { writeOrg } from '../../core/reach.js';
import type { Effect } from '../../http/idempotency.js';
import { inTransaction, lockOrganization } from '../../platform/db/index.js';
import { newId } from '../../platform/ids.js';
import type { Principal } from '../../core/principal.js';
import type { CreateInput } from '../quotes/index.js';
import { assertPriceUnchanged, chargeQuote, readQuote, redeemQuote } from '../quotes/index.js';
import type { QuotePayload } from '../quotes/index.js';
import { takeUploads } from '../uploads/index.js';
import { assertCustomIdFree, normaliseTags, withEffect, writeNewProduct, type CreateBody } from './new-product.js';
import { commitOrder } from './order.service.js';
import { countActiveProducts } from './products.repo.js';
import type { ProductRecord, ProductSource } from './products.types.js';

/**
 * POST /v1/products {resume_token}: the commit of a quote. The token is redeemed once, in the transaction that
 * charges it and makes what it paid for: a new product (a create's quote) or the order of a product's missing half.
 */

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A commit may repeat quoted fields; any that differ, or a price that moved, is quote_changed. */
function assertUnchanged(deps: Deps, payload: QuotePayload, body: CreateBody) {
  const changed: string[] = [];
  for (const [k, v] of Object.entries(body)) {
    if (k === 'resume_token' || k === 'org_id' || v === undefined) continue;
    const given = k === 'tags' ? normaliseTags(v as string[]) : k === 'image_urls' || k === 'image_paths' ? [...new Set(v as string[])] : v;
    const quoted = k === 'generate_model' ? (payload.input.generate_model ?? true) : payload.input[k];
    if (!sameValue(given, quoted)) changed.push(k);
  }
  if (changed.length) {
    throw new AppError('quote_changed', 'The commit differs from the quote; request a new quote.', { reason: 'input_changed', fields: changed });
  }
  assertPriceUnchanged(deps, payload);
}

export async function commitQuoted(deps: Deps, principal: Principal, body: CreateBody, effect?: Effect<ProductRecord>): Promise<ProductRecord> {
  const payload = readQuote(deps, body.resume_token!);
  const orgId = writeOrg(principal, payload.org);
  if (body.org_id && body.org_id !== orgId) {
    throw new AppError('quote_changed', 'The commit names another organization than the quote.', { reason: 'input_changed', fields: ['org_id'] });
  }
  assertUnchanged(deps, payload, body);
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    await lockOrganization(trx, orgId);
    const org = await redeemQuote(trx, payload, orgId, at);
    if (payload.op !== 'create') return withEffect(trx, await commitOrder(deps, trx, org, payload, at), effect);
    const productId = newId('prod');
    await chargeQuote(trx, org, payload, { addsProduct: true, activeProducts: await countActiveProducts(trx, orgId), ref: productId, at });
    const input = payload.input as unknown as CreateInput;
    await assertCustomIdFree(trx, orgId, input.custom_id);
    // The uploads must still exist (the sweep may have taken them since the quote); from now on they are kept.
    if (input.image_paths) await takeUploads(trx, orgId, 'image_paths', input.image_paths, { at, productId });
    const source: ProductSource = input.image_urls
      ? { kind: 'image_urls', image_urls: input.image_urls }
      : input.image_paths
        ? { kind: 'image_paths', image_paths: input.image_paths }
        : input.video_url
          ? { kind: 'video_url', video_url: input.video_url }
          : { kind: 'source_url', source_url: input.source_url! };
    // How the photos were taken and the real size travel with the source, for the generation job.
    if (input.capture) source.capture = input.capture;
    if (input.dimensions) source.dimensions = input.dimensions;
    return withEffect(trx, await writeNewProduct(deps, trx, { productId, orgId, source, input, credits: payload.credits, at }), effect);
  });
}

