import type { Deps } from '../../deps.js';
import { AppError, validationFailed } from '../../core/errors.js';
import { writeOrg } from '../../core/reach.js';
import type { Effect } from '../../http/idempotency.js';
import { inTransaction, lockOrganization } from '../../platform/db/index.js';
import { FetchError } from '../../platform/fetch/types.js';
import { newId } from '../../platform/ids.js';
import type { Principal } from '../../core/principal.js';
import { organizationState } from '../orgs/index.js';
import { assertPlanAllows } from '../quotes/index.js';
import type { CreateInput } from '../quotes/index.js';
import { quote, type QuoteJson } from '../quotes/index.js';
import { takeUploads } from '../uploads/index.js';
import { commitQuoted } from './commit.service.js';
import { assertCustomIdFree, normaliseTags, SOURCE_FIELDS, withEffect, writeNewProduct, type CreateBody } from './new-product.js';
import { countActiveProducts } from './products.repo.js';
import type { ProductRecord, ProductSource } from './products.types.js';

export type CreateOutcome = { kind: 'quote'; quote: QuoteJson } | { kind: 'product'; product: ProductRecord };

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
  if (field === 'resume_token') return { kind: 'product', product: await commitQuoted(deps, principal, body, effect) };
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
  const db = deps.database.db;
  const activeProducts = await countActiveProducts(db, orgId);
  const quoted = await quote(deps, {
    orgId,
    op: 'create',
    input: input as unknown as Record<string, unknown>,
    productId: null,
    activeProducts,
    beforePricing: () => assertCustomIdFree(db, orgId, input.custom_id),
  });
  return { kind: 'quote', quote: quoted };
}

async function importModel(deps: Deps, orgId: string, body: CreateBody, effect?: Effect<ProductRecord>): Promise<ProductRecord> {
  const at = deps.clock.now().toISOString();
  const input: CreateInput = { generate_model: false, title: body.title, custom_id: body.custom_id, tags: normaliseTags(body.tags) };
  return inTransaction(deps.database.db, async (trx) => {
    await lockOrganization(trx, orgId);
    const org = await organizationState(trx, orgId);
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

