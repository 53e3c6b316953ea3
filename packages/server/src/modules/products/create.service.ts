import type { Deps } from '../../deps.js';
import { AppError, validationFailed } from '../../http/errors.js';
import { writeOrg } from '../../http/reach.js';
import type { Effect } from '../../http/idempotency.js';
import type { Transaction } from 'kysely';
import { inTransaction, isUniqueViolation, lockOrganization } from '../../platform/db/index.js';
import type { DB, Executor } from '../../db.js';
import { FetchError } from '../../platform/fetch/types.js';
import { newId } from '../../platform/ids.js';
import type { Principal } from '../auth/principal.js';
import { emitProductEvent } from './products.events.js';
import { debitCredits, findOrganization } from '../orgs/orgs.repo.js';
import { assertCredits, assertPlanAllows } from '../quotes/plan.js';
import { priceOf, type CreateInput } from '../quotes/pricing.js';
import { loadStepCosts } from '../quotes/step-costs.js';
import { signQuote, verifyQuote, type QuotePayload } from '../quotes/quote-token.js';
import { commitOrder } from './order.service.js';
import { countActiveProducts, findProduct, insertProduct } from './products.repo.js';
import type { ProductRecord, ProductSource } from './products.types.js';
import { INGEST_JOBS, ingestModelJob } from '../ingest/ingest.job-defs.js';
import { takeUploads, uploadRef } from '../uploads/index.js';

export const SOURCE_FIELDS = ['image_urls', 'video_url', 'source_url', 'model_url', 'image_paths', 'model_path', 'resume_token'] as const;

export interface CreateBody {
  image_urls?: string[];
  video_url?: string;
  source_url?: string;
  model_url?: string;
  image_paths?: string[];
  model_path?: string;
  resume_token?: string;
  title?: string;
  custom_id?: string;
  tags?: string[];
  org_id?: string;
  generate_model?: boolean;
  capture?: CreateInput['capture'];
  dimensions?: CreateInput['dimensions'];
}

export interface QuoteJson {
  object: 'quote';
  operation: QuotePayload['op'];
  org_id: string;
  product_id: string | null;
  credits: number;
  balance_credits: number;
  estimated_seconds: number;
  expires_at: string;
  resume_token: string;
  input: Record<string, unknown>;
}

export type CreateOutcome = { kind: 'quote'; quote: QuoteJson } | { kind: 'product'; product: ProductRecord };

/** Tags are trimmed and deduplicated, case kept; empty ones are refused by the schema. */
export function normaliseTags(tags: string[] | undefined): string[] {
  return [...new Set((tags ?? []).map((t) => t.trim()).filter(Boolean))];
}

function chosenSource(body: CreateBody) {
  const given = SOURCE_FIELDS.filter((f) => body[f] !== undefined);
  if (given.length !== 1) {
    throw validationFailed(
      [{ path: 'body', message: `exactly one of ${SOURCE_FIELDS.join(', ')} is required; got ${given.length ? given.join(', ') : 'none'}` }],
      'Give exactly one source.',
    );
  }
  return given[0];
}

/** Refuses URLs the guarded fetcher would refuse, at input time, so a bad URL is a 422 and not a failed job. */
async function assertFetchable(deps: Deps, urls: { path: string; url: string }[]) {
  const errors: { path: string; message: string }[] = [];
  await Promise.all(
    urls.map(async ({ path, url }) => {
      try {
        await deps.fetcher.check(url);
      } catch (err) {
        if (!(err instanceof FetchError)) throw err;
        const why = err.code === 'blocked_address' ? 'points at a private or reserved address' : err.code === 'bad_url' ? 'must be an http(s) URL without credentials' : err.message;
        errors.push({ path, message: why });
      }
    }),
  );
  if (errors.length) throw validationFailed(errors, 'A URL cannot be fetched.');
}

async function assertCustomIdFree(db: Executor, orgId: string, customId: string | undefined) {
  if (!customId) return;
  const taken = await db.selectFrom('products').select('id').where('org_id', '=', orgId).where('custom_id', '=', customId).executeTakeFirst();
  if (taken) throw duplicateCustomId(customId);
}

const duplicateCustomId = (customId: string) =>
  new AppError('conflict', `A product with custom_id "${customId}" already exists.`, { reason: 'duplicate_custom_id', custom_id: customId });

function normalisedInput(body: CreateBody, field: (typeof SOURCE_FIELDS)[number]): CreateInput {
  const input: CreateInput = { generate_model: body.generate_model ?? true };
  if (field === 'image_urls') input.image_urls = [...new Set(body.image_urls)];
  if (field === 'image_paths') input.image_paths = [...new Set(body.image_paths)];
  if (field === 'video_url') input.video_url = body.video_url;
  if (field === 'source_url') input.source_url = body.source_url;
  if (body.title !== undefined) input.title = body.title;
  if (body.custom_id !== undefined) input.custom_id = body.custom_id;
  if (body.tags !== undefined) input.tags = normaliseTags(body.tags);
  if (body.capture !== undefined) input.capture = body.capture;
  if (body.dimensions !== undefined) input.dimensions = body.dimensions;
  return input;
}

export async function createProduct(deps: Deps, principal: Principal, body: CreateBody, effect?: Effect<ProductRecord>): Promise<CreateOutcome> {
  const field = chosenSource(body);
  if (field === 'resume_token') return { kind: 'product', product: await commit(deps, principal, body, effect) };
  const orgId = writeOrg(principal, body.org_id);
  if (field === 'model_url' || field === 'model_path') {
    if (field === 'model_url') await assertFetchable(deps, [{ path: 'body.model_url', url: body.model_url! }]);
    return { kind: 'product', product: await importModel(deps, orgId, body, effect) };
  }
  const input = normalisedInput(body, field);
  const urls = [
    ...(input.image_urls ?? []).map((url, i) => ({ path: `body.image_urls[${i}]`, url })),
    ...(input.video_url ? [{ path: 'body.video_url', url: input.video_url }] : []),
    ...(input.source_url ? [{ path: 'body.source_url', url: input.source_url }] : []),
  ];
  await assertFetchable(deps, urls);
  if (input.image_paths) await takeUploads(deps.database.db, orgId, 'image_paths', input.image_paths, null);
  return { kind: 'quote', quote: await quote(deps, orgId, 'create', input as unknown as Record<string, unknown>, null) };
}

/** A quote writes nothing: the token carries the input and the price, signed. */
export async function quote(
  deps: Deps,
  orgId: string,
  op: QuotePayload['op'],
  input: Record<string, unknown>,
  productId: string | null,
): Promise<QuoteJson> {
  const db = deps.database.db;
  const org = await findOrganization(db, orgId);
  if (!org) throw new AppError('not_found', 'No such organization.');
  assertPlanAllows(org, { addsProduct: op === 'create', activeProducts: op === 'create' ? await countActiveProducts(db, orgId) : 0 });
  await assertCustomIdFree(db, orgId, input.custom_id as string | undefined);
  const price = priceOf(op, input, deps.config.pricing, await loadStepCosts(db));
  assertCredits(org.credit_balance, price.credits);
  const now = deps.clock.now().getTime();
  const exp = Math.floor(now / 1000) + deps.config.pricing.quoteTtlSeconds;
  const resumeToken = signQuote(deps.config.secret, { op, org: orgId, ...(productId && { product: productId }), input, credits: price.credits, exp });
  return {
    object: 'quote',
    operation: op,
    org_id: orgId,
    product_id: productId,
    credits: price.credits,
    balance_credits: org.credit_balance,
    estimated_seconds: price.estimatedSeconds,
    expires_at: new Date(exp * 1000).toISOString(),
    resume_token: resumeToken,
    input,
  };
}

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
  const now = priceOf(payload.op, payload.input, deps.config.pricing).credits;
  if (now !== payload.credits) {
    throw new AppError('quote_changed', 'The price changed since the quote; request a new quote.', {
      reason: 'price_changed',
      quoted_credits: payload.credits,
      credits: now,
    });
  }
}

async function commit(deps: Deps, principal: Principal, body: CreateBody, effect?: Effect<ProductRecord>): Promise<ProductRecord> {
  const payload = verifyQuote(deps.config.secret, body.resume_token!, deps.clock.now().getTime());
  const orgId = writeOrg(principal, payload.org);
  if (body.org_id && body.org_id !== orgId) {
    throw new AppError('quote_changed', 'The commit names another organization than the quote.', { reason: 'input_changed', fields: ['org_id'] });
  }
  assertUnchanged(deps, payload, body);
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    await lockOrganization(trx, orgId);
    try {
      await trx.insertInto('quote_uses').values({ nonce: payload.nonce, org_id: orgId, product_id: payload.product ?? null, created_at: at }).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('conflict', 'This resume_token was already used.', { reason: 'resume_token_used' });
      throw err;
    }
    const org = (await findOrganization(trx, orgId))!;
    if (payload.op !== 'create') return withEffect(trx, await commitOrder(deps, trx, org, payload, at), effect);
    assertPlanAllows(org, { addsProduct: true, activeProducts: await countActiveProducts(trx, orgId) });
    assertCredits(org.credit_balance, payload.credits);
    const input = payload.input as unknown as CreateInput;
    await assertCustomIdFree(trx, orgId, input.custom_id);
    const productId = newId('prod');
    // The uploads must still exist (the sweep may have taken them since the quote); from now on they are kept.
    if (input.image_paths) await takeUploads(trx, orgId, 'image_paths', input.image_paths, { at, productId });
    if (payload.credits > 0) {
      const left = await debitCredits(trx, { id: newId('led'), orgId, amount: payload.credits, reason: 'create', ref: productId, at });
      if (left === null) assertCredits(0, payload.credits);
    }
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

async function importModel(deps: Deps, orgId: string, body: CreateBody, effect?: Effect<ProductRecord>): Promise<ProductRecord> {
  const at = deps.clock.now().toISOString();
  const input: CreateInput = { generate_model: false, title: body.title, custom_id: body.custom_id, tags: normaliseTags(body.tags) };
  return inTransaction(deps.database.db, async (trx) => {
    await lockOrganization(trx, orgId);
    const org = await findOrganization(trx, orgId);
    if (!org) throw new AppError('not_found', 'No such organization.');
    assertPlanAllows(org, { addsProduct: true, activeProducts: await countActiveProducts(trx, orgId) });
    await assertCustomIdFree(trx, orgId, input.custom_id);
    const productId = newId('prod');
    let source: ProductSource = { kind: 'model_url', model_url: body.model_url! };
    if (body.model_path !== undefined) {
      await takeUploads(trx, orgId, 'model_path', [body.model_path], { at, productId });
      source = { kind: 'model_path', model_path: body.model_path };
    }
    return withEffect(trx, await writeNewProduct(deps, trx, { productId, orgId, source, input, credits: 0, at }), effect);
  });
}

/** The idempotency record (when the request has a key) joins the transaction that made the product. */
async function withEffect(trx: Transaction<DB>, product: ProductRecord, effect: Effect<ProductRecord> | undefined) {
  await effect?.(trx, product);
  return product;
}

/** The product row, its ingestion job and its event, in the caller's transaction. */
async function writeNewProduct(
  deps: Deps,
  trx: Executor,
  p: { productId: string; orgId: string; source: ProductSource; input: CreateInput; credits: number; at: string },
): Promise<ProductRecord> {
  const isModel = p.source.kind === 'model_url' || p.source.kind === 'model_path';
  const generate = !isModel && p.input.generate_model;
  try {
    await insertProduct(trx, {
      id: p.productId,
      org_id: p.orgId,
      title: p.input.title ?? null,
      custom_id: p.input.custom_id ?? null,
      status: 'draft',
      model_status: isModel || generate ? 'queued' : 'none',
      model: null,
      thumbnail_key: null,
      tags: JSON.stringify(p.input.tags ?? []),
      source: JSON.stringify(p.source),
      generate_model: generate ? 1 : 0,
      analysis: 'pending',
      images_status: isModel ? 'none' : 'ingesting',
      progress: 0,
      step: 'queued',
      error: null,
      created_at: p.at,
      updated_at: p.at,
      published_at: null,
    });
  } catch (err) {
    if (isUniqueViolation(err) && p.input.custom_id) throw duplicateCustomId(p.input.custom_id);
    throw err;
  }
  if (p.source.kind === 'model_url' || p.source.kind === 'model_path') {
    const modelUrl = p.source.kind === 'model_url' ? p.source.model_url : uploadRef(p.source.model_path);
    await deps.jobs.enqueue(trx, ingestModelJob, { product_id: p.productId, model_url: modelUrl, replaces: null });
  } else {
    await deps.jobs.enqueue(trx, INGEST_JOBS[p.source.kind], { product_id: p.productId, generation_credits: generate ? deps.config.pricing.modelGeneration : 0 });
  }
  const product = (await findProduct(trx, p.productId, [p.orgId]))!;
  await emitProductEvent(trx, deps.storage, 'product.created', product.id, p.at);
  return product;
}
