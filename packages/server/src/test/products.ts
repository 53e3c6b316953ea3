import type { TestApp } from './app.js';
import { bearer } from './app.js';
import { newId } from '../platform/ids.js';
import { browserAssetKey } from '../platform/storage/names.js';
import { insertProduct } from '../modules/products/products.repo.js';
import type { ModelQualityRecord } from '../modules/products/products.types.js';

/** A loopback URL the guarded fetcher may reach only because tests allow 127.0.0.1. */
export const TEST_ALLOW = { PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1' };

export async function quoteAndCommit(t: TestApp, key: string, body: Record<string, unknown>) {
  const quote = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(key), payload: body });
  if (quote.statusCode !== 200) throw new Error(`quote failed: ${quote.statusCode} ${quote.body}`);
  const commit = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(key), payload: { resume_token: quote.json().resume_token } });
  if (commit.statusCode !== 202) throw new Error(`commit failed: ${commit.statusCode} ${commit.body}`);
  return commit.json() as { id: string } & Record<string, any>;
}

/**
 * A product in a chosen state, written straight through the repository: for tests of reads, publish
 * and the public projection that must not depend on the ingestion pipeline.
 */
export async function seedProduct(
  t: TestApp,
  orgId: string,
  opts: {
    status?: 'draft' | 'published' | 'archived';
    modelStatus?: 'none' | 'queued' | 'generating' | 'ready' | 'failed';
    tags?: string[];
    title?: string;
    customId?: string;
    analysis?: 'none' | 'pending' | 'done' | 'failed';
    imagesStatus?: 'none' | 'ingesting' | 'ready' | 'failed' | 'ordered';
    /** A generated model's quality record; without it the model is an import. */
    quality?: ModelQualityRecord;
  } = {},
) {
  const at = new Date().toISOString();
  const id = newId('prod');
  const ready = (opts.modelStatus ?? 'ready') === 'ready';
  await insertProduct(t.deps.database.db, {
    id,
    org_id: orgId,
    title: opts.title ?? `Product ${id.slice(-6)}`,
    custom_id: opts.customId ?? null,
    status: opts.status ?? 'draft',
    model_status: opts.modelStatus ?? 'ready',
    model: ready
      ? JSON.stringify({ glbKey: browserAssetKey({ orgId, id }, '.glb'), usdzKey: browserAssetKey({ orgId, id }, '.usdz'), decision: 'pending', dimensions: { width: 0.3, height: 0.2, depth: 0.1 }, triangles: 12, bytes: 1000, settings: {}, ...(opts.quality ? { origin: 'generated', quality: opts.quality } : { origin: 'imported' }) })
      : null,
    thumbnail_key: browserAssetKey({ orgId, id }, '.thumb.webp'),
    tags: JSON.stringify(opts.tags ?? []),
    source: JSON.stringify({ kind: 'model_url', model_url: 'https://models.example/x.glb' }),
    generate_model: 0,
    analysis: opts.analysis ?? 'done',
    images_status: opts.imagesStatus ?? 'none',
    progress: 100,
    step: 'done',
    error: null,
    created_at: at,
    updated_at: at,
    published_at: opts.status === 'published' ? at : null,
  });
  return id;
}

/** Image rows for a seeded product (no files): for review and settings tests. */
export async function seedImages(t: TestApp, productId: string, orgId: string, count: number): Promise<string[]> {
  const at = new Date().toISOString();
  const ids = Array.from({ length: count }, () => newId('img'));
  await t.deps.database.db
    .insertInto('images')
    .values(
      ids.map((id, position) => ({
        id,
        product_id: productId,
        org_id: orgId,
        position,
        origin: 'fetched' as const,
        review_status: 'pending' as const,
        settings: '{}',
        storage_key: `orgs/${orgId}/products/${productId}/images/${id}.jpg`,
        content_type: 'image/jpeg',
        mask_key: null,
        thumb_key: null,
        width: 100,
        height: 100,
        bytes: 1000,
        sha256: null,
        analysis: null,
        source_url: null,
        error: null,
        created_at: at,
        updated_at: at,
      })),
    )
    .execute();
  return ids;
}

/** A seeded product with `count` image rows: for review and asset tests. */
export async function seedProductWithImages(t: TestApp, orgId: string, count: number, opts: Parameters<typeof seedProduct>[2] = {}) {
  const id = await seedProduct(t, orgId, opts);
  return { id, images: await seedImages(t, id, orgId, count) };
}
