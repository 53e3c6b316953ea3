import type { Insertable, Transaction } from 'kysely';
import type { DB, Executor } from '../../db.js';

/** A seq that was skipped when newer ones were read; its transaction may still commit. */
export interface Gap {
  seq: number;
  /** when the dispatcher first noticed it missing */
  since: string;
}

export interface DispatchState {
  scannedSeq: number;
  gaps: Gap[];
  chainToken: string | null;
}

export interface OutboxEvent {
  seq: number;
  id: string;
  orgId: string;
  type: string;
  data: string;
  createdAt: string;
}

const STATE_ID = 'events';

/**
 * Takes the dispatcher's row for the rest of the transaction. Writing first makes SQLite take its write
 * lock at once and PostgreSQL lock the row, so two dispatchers never work the same events at once.
 */
export async function lockDispatchState(trx: Transaction<DB>, at: string): Promise<DispatchState> {
  const row = await trx
    .updateTable('webhook_dispatch')
    .set({ updated_at: at })
    .where('id', '=', STATE_ID)
    .returningAll()
    .executeTakeFirstOrThrow(() => new Error('webhook_dispatch has no state row; run the migrations'));
  return { scannedSeq: Number(row.scanned_seq), gaps: JSON.parse(row.gaps) as Gap[], chainToken: row.chain_token };
}

/** Where the scan stands and the newest event, read without taking the dispatcher's lock or writing anything. */
export async function peekDispatch(db: Executor): Promise<{ scannedSeq: number; gaps: Gap[]; newestSeq: number }> {
  const row = await db.selectFrom('webhook_dispatch').select(['scanned_seq', 'gaps']).where('id', '=', STATE_ID).executeTakeFirst();
  const newest = await db.selectFrom('events').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
  return {
    scannedSeq: Number(row?.scanned_seq ?? 0),
    gaps: row ? (JSON.parse(row.gaps) as Gap[]) : [],
    newestSeq: Number(newest?.seq ?? 0),
  };
}

export async function saveDispatchState(trx: Transaction<DB>, state: DispatchState, at: string): Promise<void> {
  await trx
    .updateTable('webhook_dispatch')
    .set({ scanned_seq: state.scannedSeq, gaps: JSON.stringify(state.gaps), chain_token: state.chainToken, updated_at: at })
    .where('id', '=', STATE_ID)
    .execute();
}

const eventColumns = ['seq', 'id', 'org_id', 'type', 'data', 'created_at'] as const;

function toEvent(r: { seq: number | string; id: string; org_id: string; type: string; data: string; created_at: string }): OutboxEvent {
  return { seq: Number(r.seq), id: r.id, orgId: r.org_id, type: r.type, data: r.data, createdAt: r.created_at };
}

export async function eventsAfter(db: Executor, seq: number, limit: number): Promise<OutboxEvent[]> {
  const rows = await db.selectFrom('events').select(eventColumns).where('seq', '>', seq).orderBy('seq').limit(limit).execute();
  return rows.map(toEvent);
}

export async function eventsWithSeqs(db: Executor, seqs: number[]): Promise<OutboxEvent[]> {
  if (!seqs.length) return [];
  const rows = await db.selectFrom('events').select(eventColumns).where('seq', 'in', seqs).orderBy('seq').execute();
  return rows.map(toEvent);
}

export async function eventById(db: Executor, id: string): Promise<OutboxEvent | undefined> {
  const row = await db.selectFrom('events').select(eventColumns).where('id', '=', id).executeTakeFirst();
  return row && toEvent(row);
}

/** `${endpoint_id} ${event_id}` of the deliveries that already exist for these events. */
export async function existingDeliveryKeys(db: Executor, eventIds: string[]): Promise<Set<string>> {
  if (!eventIds.length) return new Set();
  const rows = await db.selectFrom('webhook_deliveries').select(['endpoint_id', 'event_id']).where('event_id', 'in', eventIds).execute();
  return new Set(rows.map((r) => `${r.endpoint_id} ${r.event_id}`));
}

/** `${endpoint_id} ${ordering_key}` pairs that have a pending delivery, i.e. a queue new ones must wait in. */
export async function pendingQueueKeys(db: Executor, endpointIds: string[], orderingKeys: string[]): Promise<Set<string>> {
  if (!endpointIds.length || !orderingKeys.length) return new Set();
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', 'ordering_key'])
    .distinct()
    .where('endpoint_id', 'in', endpointIds)
    .where('ordering_key', 'in', orderingKeys)
    .where('status', '=', 'pending')
    .execute();
  return new Set(rows.map((r) => `${r.endpoint_id} ${r.ordering_key}`));
}

export async function insertDeliveries(db: Executor, rows: Insertable<DB['webhook_deliveries']>[]): Promise<void> {
  // Chunks keep each statement well under SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 200) {
    await db.insertInto('webhook_deliveries').values(rows.slice(i, i + 200)).execute();
  }
}
