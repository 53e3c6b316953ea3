import type { Selectable } from 'kysely';
import type { DB, Executor } from '../../db.js';
import type { ExperimentRecord } from './experiments.types.js';

type Row = Selectable<DB['experiments']>;

export function toExperimentRecord(r: Row): ExperimentRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    status: r.status,
    arms: JSON.parse(r.arms),
    productIds: r.product_ids === null ? null : JSON.parse(r.product_ids),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    stoppedAt: r.stopped_at,
  };
}

export async function insertExperiment(db: Executor, e: ExperimentRecord): Promise<void> {
  await db
    .insertInto('experiments')
    .values({
      id: e.id,
      org_id: e.orgId,
      name: e.name,
      status: e.status,
      arms: JSON.stringify(e.arms),
      product_ids: e.productIds === null ? null : JSON.stringify(e.productIds),
      created_at: e.createdAt,
      updated_at: e.updatedAt,
      stopped_at: e.stoppedAt,
    })
    .execute();
}

/** The experiment, if it belongs to one of `orgIds`: another organization's id reads as unknown. */
export async function findExperiment(db: Executor, id: string, orgIds: readonly string[]): Promise<ExperimentRecord | undefined> {
  if (!orgIds.length) return undefined;
  const row = await db.selectFrom('experiments').selectAll().where('id', '=', id).where('org_id', 'in', orgIds).executeTakeFirst();
  return row && toExperimentRecord(row);
}

export async function runningExperiments(db: Executor, orgId: string): Promise<ExperimentRecord[]> {
  const rows = await db.selectFrom('experiments').selectAll().where('org_id', '=', orgId).where('status', '=', 'running').orderBy('id').execute();
  return rows.map(toExperimentRecord);
}

export async function listExperiments(
  db: Executor,
  orgIds: readonly string[],
  q: { status?: 'running' | 'stopped'; limit: number; offset: number },
): Promise<{ data: ExperimentRecord[]; total: number }> {
  if (!orgIds.length) return { data: [], total: 0 };
  let base = db.selectFrom('experiments').where('org_id', 'in', orgIds);
  if (q.status) base = base.where('status', '=', q.status);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(toExperimentRecord), total: Number(count.n) };
}

export async function updateExperimentRow(
  db: Executor,
  id: string,
  values: Partial<Pick<Row, 'name' | 'status' | 'updated_at' | 'stopped_at'>>,
): Promise<void> {
  await db.updateTable('experiments').set(values).where('id', '=', id).execute();
}

export async function deleteExperimentRow(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('experiments').where('id', '=', id).execute();
}

/** The organization's products among `ids` (to tell the caller which ids are unknown). */
export async function knownProducts(db: Executor, orgId: string, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db.selectFrom('products').select('id').where('org_id', '=', orgId).where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}
