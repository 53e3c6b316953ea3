import type { Readable } from 'node:stream';
import type { Deps } from '../../deps.js';
import { AppError, notFound, validationFailed } from '../../core/errors.js';
import { inTransaction } from '../../platform/db/index.js';
import { newId } from '../../platform/ids.js';
import type { Principal } from '../../core/principal.js';
import { filterFrom, productIdsMatching, type ListQuery } from '../products/index.js';
import type { ReviewStatus } from '../products/index.js';
import type { PresetName } from '@plinth/media';
import { finishAll } from './export.finishing.js';
import { finishExportJob } from './export.job-defs.js';
import { verifyDownload } from './export.link.js';
import { pendingEntries, planExport, selectionHash, type ExportPlan, type PlanOptions } from './export.plan.js';
import { streamZip } from './export.zip.js';

export const MAX_EXPORT_PRODUCTS = 200;

export interface ExportQuery extends Omit<ListQuery, 'limit' | 'offset'> {
  image_review_status?: ReviewStatus[];
  notify_email?: string;
  preset?: PresetName;
  strict?: boolean;
}

export type ExportOutcome =
  | { kind: 'zip'; stream: Readable; filename: string }
  | { kind: 'queued'; body: { object: 'export'; status: 'queued'; export_id: string; pending_images: number; total_images: number; notify_email: string } };

const tooMany = (n: number | string) =>
  validationFailed([{ path: 'query', message: `an export holds at most ${MAX_EXPORT_PRODUCTS} products; this selection has ${n}` }], 'Too many products for one export.');

async function selectProducts(deps: Deps, principal: Principal, q: ExportQuery) {
  const db = deps.database.db;
  let ids: string[];
  if (q.ids?.length) {
    ids = [...new Set(q.ids)];
    if (ids.length > MAX_EXPORT_PRODUCTS) throw tooMany(ids.length);
  } else {
    ids = await productIdsMatching(db, filterFrom(principal, { ...q, limit: 0, offset: 0 }), MAX_EXPORT_PRODUCTS + 1);
    if (ids.length > MAX_EXPORT_PRODUCTS) throw tooMany(`more than ${MAX_EXPORT_PRODUCTS}`);
  }
  const orgIds = q.org_id ? filterFrom(principal, { org_id: q.org_id, limit: 0, offset: 0 }).orgIds : principal.orgIds;
  if (!ids.length || !orgIds.length) return [];
  return db.selectFrom('products').select(['id', 'org_id', 'custom_id']).where('id', 'in', ids).where('org_id', 'in', orgIds).execute();
}

const filename = () => `plinth-export-${new Date().toISOString().slice(0, 10)}.zip`;

/**
 * Streams the ZIP when what still needs finishing fits one request; otherwise queues the finishing and
 * answers 202. The same request, repeated once the worker is done, streams the ZIP from the cache.
 */
export async function requestExport(deps: Deps, principal: Principal, q: ExportQuery): Promise<ExportOutcome> {
  const products = await selectProducts(deps, principal, q);
  const statuses = [...new Set(q.image_review_status ?? (['accepted', 'pending'] as ReviewStatus[]))];
  const options: PlanOptions = { preset: q.preset ?? null, strict: q.strict ?? false };
  const plan = await planExport(deps.database.db, products, statuses, options);
  const pending = await pendingEntries(deps, plan);
  if (pending.length <= deps.config.exportSyncLimit) {
    await finishAll(deps, pending);
    return { kind: 'zip', stream: streamZip(deps, plan), filename: filename() };
  }
  if (!q.notify_email) {
    throw validationFailed(
      [{ path: 'query.notify_email', message: `is required: ${pending.length} images need finishing, more than one request does (${deps.config.exportSyncLimit})` }],
      'This export is queued; say where to send the link.',
    );
  }
  return { kind: 'queued', body: await queueExport(deps, plan, statuses, pending.length, q.notify_email) };
}

async function queueExport(deps: Deps, plan: ExportPlan, statuses: ReviewStatus[], pending: number, email: string) {
  const orgId = plan.entries[0].orgId;
  const hash = selectionHash(plan.productIds, statuses, { preset: plan.preset, strict: plan.strict });
  const at = deps.clock.now().toISOString();
  const row = await inTransaction(deps.database.db, async (trx) => {
    const running = await trx
      .selectFrom('exports')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('selection_hash', '=', hash)
      .where('state', '=', 'queued')
      .executeTakeFirst();
    if (running) return running;
    const created = {
      id: newId('exp'),
      org_id: orgId,
      selection_hash: hash,
      selection: JSON.stringify({ product_ids: plan.productIds, review_statuses: statuses, preset: plan.preset, strict: plan.strict }),
      notify_email: email,
      state: 'queued' as const,
      total_images: plan.entries.length,
      pending_images: pending,
      error: null,
      mailed_at: null,
      created_at: at,
      updated_at: at,
    };
    await trx.insertInto('exports').values(created).execute();
    await deps.jobs.enqueue(trx, finishExportJob, { export_id: created.id });
    return created;
  });
  return {
    object: 'export' as const,
    status: 'queued' as const,
    export_id: row.id,
    pending_images: row.pending_images,
    total_images: row.total_images,
    notify_email: row.notify_email,
  };
}

/** The plan a queued export froze: its products (those still existing) and review statuses. */
export async function planOfExport(deps: Deps, exportId: string) {
  const row = await deps.database.db.selectFrom('exports').selectAll().where('id', '=', exportId).executeTakeFirst();
  if (!row) return null;
  const selection = JSON.parse(row.selection) as { product_ids: string[]; review_statuses: ReviewStatus[]; preset?: PresetName | null; strict?: boolean };
  const products = selection.product_ids.length
    ? await deps.database.db.selectFrom('products').select(['id', 'org_id', 'custom_id']).where('id', 'in', selection.product_ids).execute()
    : [];
  return { row, plan: await planExport(deps.database.db, products, selection.review_statuses, { preset: selection.preset, strict: selection.strict }) };
}

/** The signed link from the mail: the same ZIP, without an API key. */
export async function downloadExport(deps: Deps, exportId: string, expires: number, signature: string): Promise<ExportOutcome> {
  verifyDownload(deps.config.secret, exportId, expires, signature, deps.clock.now().getTime());
  const found = await planOfExport(deps, exportId);
  if (!found) throw notFound('export');
  if (found.row.state !== 'ready') throw new AppError('conflict', 'The export is still being finished.', { reason: 'export_not_ready' });
  // The cache may have been cleared since; anything missing is finished again now.
  await finishAll(deps, await pendingEntries(deps, found.plan));
  return { kind: 'zip', stream: streamZip(deps, found.plan), filename: filename() };
}
