import type { Selectable, Transaction } from 'kysely';
import { forUpdate } from '../../platform/db/index.js';
import type { DB, Executor } from '../../db.js';
import type { AttemptRecord, DeliveryRecord, DeliveryStatus, EndpointRecord, FailureReason } from './webhooks.types.js';

type EndpointRow = Selectable<DB['webhook_endpoints']>;
type DeliveryRow = Selectable<DB['webhook_deliveries']>;
type AttemptRow = Selectable<DB['webhook_attempts']>;

export function toEndpointRecord(r: EndpointRow): EndpointRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    url: r.url,
    description: r.description,
    events: JSON.parse(r.events) as string[],
    enabled: Number(r.enabled) === 1,
    disabledReason: r.disabled_reason,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toDeliveryRecord(r: DeliveryRow): DeliveryRecord {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    orgId: r.org_id,
    eventId: r.event_id,
    // bigint columns arrive as strings from node-postgres
    eventSeq: Number(r.event_seq),
    eventType: r.event_type,
    orderingKey: r.ordering_key,
    status: r.status,
    failureReason: r.failure_reason as FailureReason | null,
    attemptCount: r.attempt_count,
    nextAttemptAt: r.next_attempt_at,
    lastResponseStatus: r.last_response_status,
    jobToken: r.job_token,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toAttemptRecord(r: AttemptRow): AttemptRecord {
  return {
    number: r.number,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    durationMs: r.duration_ms,
    responseStatus: r.response_status,
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
    nextAttemptAt: r.next_attempt_at,
  };
}

const none = ['-'];

// ---- endpoints ---------------------------------------------------------------------------------

export async function insertEndpoint(db: Executor, row: EndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export async function findEndpoint(db: Executor, id: string, orgIds: readonly string[]): Promise<EndpointRecord | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', 'in', orgIds.length ? orgIds : none)
    .executeTakeFirst();
  return row && toEndpointRecord(row);
}

/**
 * Reads an endpoint and, on PostgreSQL, locks its row for the rest of the transaction. Every change to
 * an endpoint's deliveries takes this lock first, so "is an earlier delivery still pending?" and
 * "release the next one" never interleave. SQLite runs one write transaction at a time already.
 */
export async function lockEndpoint(trx: Transaction<DB>, id: string): Promise<EndpointRecord | undefined> {
  const row = await forUpdate(trx, trx.selectFrom('webhook_endpoints').selectAll().where('id', '=', id)).executeTakeFirst();
  return row && toEndpointRecord(row);
}

/** Enabled endpoints of these organizations, locked in id order (a fixed order cannot deadlock). */
export async function lockEnabledEndpoints(trx: Transaction<DB>, orgIds: string[]): Promise<EndpointRecord[]> {
  if (!orgIds.length) return [];
  const query = trx.selectFrom('webhook_endpoints').selectAll().where('org_id', 'in', orgIds).where('enabled', '=', 1).orderBy('id');
  const rows = await forUpdate(trx, query).execute();
  return rows.map(toEndpointRecord);
}

export async function listEndpoints(db: Executor, orgIds: string[], page: { limit: number; offset: number }) {
  const base = db.selectFrom('webhook_endpoints').where('org_id', 'in', orgIds.length ? orgIds : none);
  const [rows, [{ total }]] = await Promise.all([
    base.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).execute(),
  ]);
  return { data: rows.map(toEndpointRecord), total: Number(total) };
}

export async function updateEndpointRow(db: Executor, id: string, patch: Partial<Omit<EndpointRow, 'id' | 'org_id'>>) {
  await db.updateTable('webhook_endpoints').set(patch).where('id', '=', id).execute();
}

export async function deleteEndpointRow(db: Executor, id: string) {
  // Deliveries and attempts go with it (ON DELETE CASCADE); their queued jobs then find nothing to do.
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

// ---- deliveries --------------------------------------------------------------------------------

export async function listDeliveries(
  db: Executor,
  endpointId: string,
  statuses: DeliveryStatus[] | undefined,
  page: { limit: number; offset: number },
) {
  let base = db.selectFrom('webhook_deliveries').where('endpoint_id', '=', endpointId);
  if (statuses?.length) base = base.where('status', 'in', statuses);
  const [rows, [{ total }]] = await Promise.all([
    base.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).execute(),
  ]);
  return { data: rows.map(toDeliveryRecord), total: Number(total) };
}

export async function attemptsOf(db: Executor, deliveryIds: string[]): Promise<Map<string, AttemptRecord[]>> {
  const out = new Map<string, AttemptRecord[]>();
  if (!deliveryIds.length) return out;
  const rows = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('number')
    .execute();
  for (const r of rows) out.set(r.delivery_id, [...(out.get(r.delivery_id) ?? []), toAttemptRecord(r)]);
  return out;
}

export async function findDelivery(db: Executor, id: string, endpointId?: string): Promise<DeliveryRecord | undefined> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id);
  if (endpointId) q = q.where('endpoint_id', '=', endpointId);
  const row = await q.executeTakeFirst();
  return row && toDeliveryRecord(row);
}

export async function updateDelivery(db: Executor, id: string, patch: Partial<Omit<DeliveryRow, 'id' | 'endpoint_id'>>) {
  await db.updateTable('webhook_deliveries').set(patch).where('id', '=', id).execute();
}

/** The earliest pending delivery of one endpoint for one ordering key: the only one that may be sent. */
export async function headOfQueue(db: Executor, endpointId: string, orderingKey: string): Promise<DeliveryRecord | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where('ordering_key', '=', orderingKey)
    .where('status', '=', 'pending')
    .orderBy('event_seq')
    .limit(1)
    .executeTakeFirst();
  return row && toDeliveryRecord(row);
}

/** Ends every pending delivery of an endpoint that was just disabled. */
export async function failPendingOf(db: Executor, endpointId: string, reason: FailureReason, at: string) {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', failure_reason: reason, job_token: null, next_attempt_at: null, updated_at: at })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

// ---- attempts ----------------------------------------------------------------------------------

export async function insertAttempt(db: Executor, deliveryId: string, number: number, startedAt: string) {
  await db
    .insertInto('webhook_attempts')
    .values({
      delivery_id: deliveryId,
      number,
      started_at: startedAt,
      finished_at: null,
      duration_ms: null,
      response_status: null,
      error_code: null,
      error_message: null,
      next_attempt_at: null,
    })
    .execute();
}

export async function finishAttempt(db: Executor, deliveryId: string, number: number, patch: Partial<Omit<AttemptRow, 'delivery_id' | 'number'>>) {
  await db.updateTable('webhook_attempts').set(patch).where('delivery_id', '=', deliveryId).where('number', '=', number).execute();
}

/** Attempts that started and never recorded an outcome: their worker stopped in the middle. */
export async function markInterrupted(db: Executor, deliveryId: string, at: string) {
  await db
    .updateTable('webhook_attempts')
    .set({
      finished_at: at,
      error_code: 'interrupted',
      error_message: 'the worker stopped before it recorded an outcome; the delivery was sent again',
    })
    .where('delivery_id', '=', deliveryId)
    .where('finished_at', 'is', null)
    .execute();
}

/** Deletes up to `batch` finished deliveries (and, by cascade, their attempts) last touched before `before`. */
export async function purgeFinishedDeliveries(db: Executor, before: string, batch: number): Promise<number> {
  const ids = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', 'in', ['succeeded', 'failed'])
    .where('updated_at', '<', before)
    .limit(batch);
  const result = await db.deleteFrom('webhook_deliveries').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
