import type { ExpressionBuilder } from 'kysely';
import type { DB, Executor } from '../../db.js';

export interface UploadRow {
  id: string;
  orgId: string;
  path: string;
  storageKey: string;
  bytes: number;
  contentType: string;
  kind: 'image' | 'model';
  usedAt: string | null;
  createdAt: string;
}

const COLUMNS = ['id', 'org_id', 'path', 'storage_key', 'bytes', 'content_type', 'kind', 'used_at', 'created_at'] as const;

function toRow(r: { id: string; org_id: string; path: string; storage_key: string; bytes: number | string; content_type: string; kind: string; used_at: string | null; created_at: string }): UploadRow {
  return {
    id: r.id,
    orgId: r.org_id,
    path: r.path,
    storageKey: r.storage_key,
    bytes: Number(r.bytes),
    contentType: r.content_type,
    kind: r.kind === 'model' ? 'model' : 'image',
    usedAt: r.used_at,
    createdAt: r.created_at,
  };
}

export async function insertUpload(db: Executor, u: Omit<UploadRow, 'usedAt'>): Promise<void> {
  await db
    .insertInto('uploads')
    .values({ id: u.id, org_id: u.orgId, path: u.path, storage_key: u.storageKey, bytes: u.bytes, content_type: u.contentType, kind: u.kind, used_at: null, created_at: u.createdAt })
    .execute();
}

/** Bytes an organization keeps in uploads: what the quota counts. */
export async function usedUploadBytes(db: Executor, orgId: string): Promise<number> {
  const row = await db.selectFrom('uploads').select((eb) => eb.fn.sum<number | string | null>('bytes').as('total')).where('org_id', '=', orgId).executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** Only this organization's rows: another organization's path is simply not found. */
export async function findUploads(db: Executor, orgId: string, paths: string[]): Promise<UploadRow[]> {
  if (!paths.length) return [];
  const rows = await db.selectFrom('uploads').select(COLUMNS).where('org_id', '=', orgId).where('path', 'in', paths).execute();
  return rows.map(toRow);
}

export async function markUploadsUsed(db: Executor, orgId: string, paths: string[], use: { at: string; productId: string }): Promise<void> {
  if (!paths.length) return;
  await db
    .updateTable('uploads')
    .set({ used_at: use.at, used_by: use.productId })
    .where('org_id', '=', orgId)
    .where('path', 'in', paths)
    .where((eb) => eb.or([eb('used_at', 'is', null), unusedAgain(eb)]))
    .execute();
}

/** Used by a product that has since been deleted: its ingestion copied the bytes, nothing needs them now. */
const unusedAgain = (eb: ExpressionBuilder<DB, 'uploads'>) =>
  eb.and([eb('used_by', 'is not', null), eb.not(eb.exists(eb.selectFrom('products').select('products.id').whereRef('products.id', '=', 'uploads.used_by')))]);

const unused = (eb: ExpressionBuilder<DB, 'uploads'>) => eb.or([eb('used_at', 'is', null), unusedAgain(eb)]);

/** Unused uploads created before `before`, oldest first. */
export async function staleUploads(db: Executor, before: string, limit: number): Promise<UploadRow[]> {
  const rows = await db.selectFrom('uploads').select(COLUMNS).where(unused).where('created_at', '<', before).orderBy('created_at').limit(limit).execute();
  return rows.map(toRow);
}

/** Deletes the row only if it is still unused: a product that took it meanwhile keeps it. */
export async function deleteUnusedUpload(db: Executor, id: string): Promise<boolean> {
  const res = await db.deleteFrom('uploads').where('id', '=', id).where(unused).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
