import { sql, type Insertable, type Selectable } from 'kysely';
import type { DB, Executor } from '../../db.js';
import type { ImageRecord, ProductRecord, ProductSource, StoredModel } from './products.types.js';

type ProductRow = Selectable<DB['products']>;
export type ImageRow = Selectable<DB['images']>;

const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export function toImageRecord(r: ImageRow): ImageRecord {
  return {
    id: r.id,
    productId: r.product_id,
    orgId: r.org_id,
    position: r.position,
    origin: r.origin,
    reviewStatus: r.review_status,
    settings: JSON.parse(r.settings) as Record<string, unknown>,
    storageKey: r.storage_key,
    contentType: r.content_type,
    maskKey: r.mask_key,
    thumbKey: r.thumb_key,
    width: r.width,
    height: r.height,
    bytes: r.bytes,
    sha256: r.sha256,
    analysis: parse(r.analysis),
    sourceUrl: r.source_url,
    error: parse(r.error),
    compliance: parse(r.compliance),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toProductRecord(r: ProductRow, images: ImageRecord[]): ProductRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    title: r.title,
    customId: r.custom_id,
    status: r.status,
    modelStatus: r.model_status,
    model: parse<StoredModel>(r.model),
    thumbnailKey: r.thumbnail_key,
    tags: JSON.parse(r.tags) as string[],
    source: JSON.parse(r.source) as ProductSource,
    generateModel: r.generate_model === 1,
    analysis: r.analysis,
    imagesStatus: r.images_status,
    progress: r.progress,
    step: r.step,
    error: parse(r.error),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    publishedAt: r.published_at,
    images,
  };
}

export async function insertProduct(db: Executor, row: ProductRow) {
  await db.insertInto('products').values(row).execute();
  await replaceTags(db, row.id, row.org_id, JSON.parse(row.tags) as string[]);
}

export async function replaceTags(db: Executor, productId: string, orgId: string, tags: string[]) {
  await db.deleteFrom('product_tags').where('product_id', '=', productId).execute();
  if (tags.length) {
    await db.insertInto('product_tags').values(tags.map((tag) => ({ product_id: productId, org_id: orgId, tag }))).execute();
  }
}

export async function imagesOf(db: Executor, productIds: string[]): Promise<Map<string, ImageRecord[]>> {
  const out = new Map<string, ImageRecord[]>();
  if (!productIds.length) return out;
  const rows = await db.selectFrom('images').selectAll().where('product_id', 'in', productIds).orderBy('product_id').orderBy('position').execute();
  for (const r of rows) {
    const list = out.get(r.product_id) ?? [];
    list.push(toImageRecord(r));
    out.set(r.product_id, list);
  }
  return out;
}

export async function findProductRow(db: Executor, id: string, orgIds: readonly string[]) {
  if (!orgIds.length) return undefined;
  return db.selectFrom('products').selectAll().where('id', '=', id).where('org_id', 'in', orgIds).executeTakeFirst();
}

export async function findProduct(db: Executor, id: string, orgIds: readonly string[]): Promise<ProductRecord | undefined> {
  const row = await findProductRow(db, id, orgIds);
  if (!row) return undefined;
  return toProductRecord(row, (await imagesOf(db, [row.id])).get(row.id) ?? []);
}

/** For the worker: a product by id alone (the job carries the id its own transaction wrote). */
export async function loadProduct(db: Executor, id: string): Promise<ProductRecord | undefined> {
  const row = await db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  return toProductRecord(row, (await imagesOf(db, [row.id])).get(row.id) ?? []);
}

export interface ProductFilter {
  orgIds: string[];
  tags?: string[];
  tagMatch?: 'all' | 'any';
  status?: string[];
  modelStatus?: string[];
  q?: string;
  customId?: string;
  ids?: string[];
  /** false: only products with an image whose finishing failed a compliance check; true: none such. */
  channelReady?: boolean;
}

function filtered(db: Executor, f: ProductFilter) {
  let q = db.selectFrom('products').where('products.org_id', 'in', f.orgIds);
  if (f.ids?.length) q = q.where('products.id', 'in', f.ids);
  if (f.status?.length) q = q.where('products.status', 'in', f.status as ProductRow['status'][]);
  if (f.modelStatus?.length) q = q.where('products.model_status', 'in', f.modelStatus as ProductRow['model_status'][]);
  if (f.customId) q = q.where('products.custom_id', '=', f.customId);
  if (f.q) {
    const needle = `%${f.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where(sql<boolean>`lower(products.title) like ${needle} escape '\\'`);
  }
  if (f.tags?.length) q = q.where('products.id', 'in', taggedIds(db, f));
  if (f.channelReady !== undefined) {
    const failing = db.selectFrom('images').select('images.product_id').where('images.org_id', 'in', f.orgIds).where('images.channel_ready', '=', 0);
    q = q.where('products.id', f.channelReady ? 'not in' : 'in', failing);
  }
  return q;
}

/**
 * Ids of the products carrying the filter's tags: one range of the (org_id, tag, product_id) index
 * per tag (never the JSON column), combined with UNION (any) or INTERSECT (all). Each range comes
 * out sorted by product_id, so SQLite merges them as streams (MERGE (UNION) / MERGE (INTERSECT)):
 * no temporary b-tree, and an ORDER BY product_id … LIMIT stops after the page.
 */
function taggedIds(db: Executor, f: ProductFilter) {
  const arms = [...new Set(f.tags)].map((tag) =>
    db.selectFrom('product_tags').select('product_id').where('product_tags.org_id', 'in', f.orgIds).where('product_tags.tag', '=', tag),
  );
  return arms.slice(1).reduce((ids, arm) => (f.tagMatch === 'any' ? ids.union(arm) : ids.intersect(arm)), arms[0]);
}

/** Only organization and tags: product_tags alone answers which products, and how many. */
function tagsOnly(f: ProductFilter): boolean {
  return Boolean(f.tags?.length && !f.ids?.length && !f.status?.length && !f.modelStatus?.length && !f.customId && !f.q && f.channelReady === undefined);
}

export async function listProductRows(db: Executor, f: ProductFilter, page: { limit: number; offset: number }) {
  if (tagsOnly(f)) {
    // Joining every matching id back to products (to count them, or to sort them) cost one index
    // probe per match: 45k probes for a tag on half of a 100k catalogue. Tag rows exist only for
    // existing products of their own organization, so the ids are counted and paged where they are.
    const ids = taggedIds(db, f);
    const pageIds = ids.orderBy('product_id', 'desc').limit(page.limit).offset(page.offset);
    const [rows, [{ total }]] = await Promise.all([
      db.selectFrom('products').selectAll('products').where('products.org_id', 'in', f.orgIds).where('products.id', 'in', pageIds).orderBy('products.id', 'desc').execute(),
      db.selectFrom(ids.as('tagged')).select((eb) => eb.fn.countAll<number>().as('total')).execute(),
    ]);
    return { rows, total: Number(total) };
  }
  const base = filtered(db, f);
  const [rows, [{ total }]] = await Promise.all([
    base.selectAll('products').orderBy('products.id', 'desc').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).execute(),
  ]);
  return { rows, total: Number(total) };
}

export async function listProducts(db: Executor, f: ProductFilter, page: { limit: number; offset: number }) {
  const { rows, total } = await listProductRows(db, f, page);
  const images = await imagesOf(db, rows.map((r) => r.id));
  return { data: rows.map((r) => toProductRecord(r, images.get(r.id) ?? [])), total };
}

export async function productIdsMatching(db: Executor, f: ProductFilter, max: number): Promise<string[]> {
  const rows = await filtered(db, f).select('products.id').orderBy('products.id', 'desc').limit(max).execute();
  return rows.map((r) => r.id);
}

export async function countActiveProducts(db: Executor, orgId: string): Promise<number> {
  const row = await db
    .selectFrom('products')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId)
    .where('status', '!=', 'archived')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateProductRow(db: Executor, id: string, patch: Partial<Omit<ProductRow, 'id' | 'org_id'>>) {
  await db.updateTable('products').set(patch).where('id', '=', id).execute();
}

export async function deleteProductRows(db: Executor, ids: string[]) {
  if (!ids.length) return;
  await db.deleteFrom('products').where('id', 'in', ids).execute();
}

export async function tagCounts(db: Executor, orgIds: string[], page: { limit: number; offset: number }) {
  if (!orgIds.length) return { rows: [], total: 0 };
  const base = db.selectFrom('product_tags').where('org_id', 'in', orgIds);
  const [rows, [{ total }]] = await Promise.all([
    base
      .select(['tag', (eb) => eb.fn.countAll<number>().as('count')])
      .groupBy('tag')
      .orderBy('count', 'desc')
      .orderBy('tag')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.count<number>('tag').distinct().as('total')).execute(),
  ]);
  return { rows: rows.map((r) => ({ tag: r.tag, count: Number(r.count) })), total: Number(total) };
}

export async function updateImageRow(db: Executor, id: string, patch: Partial<Omit<ImageRow, 'id' | 'product_id' | 'org_id'>>) {
  await db.updateTable('images').set(patch).where('id', '=', id).execute();
}

export async function insertImages(db: Executor, images: Insertable<DB['images']>[]) {
  await db.insertInto('images').values(images).execute();
}
