import type { Insertable, Transaction } from 'kysely';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../platform/db/index.js';
import type { DB } from '../../db.js';
import { newId } from '../../platform/ids.js';
import {
  eventsAfter,
  eventsWithSeqs,
  existingDeliveryKeys,
  insertDeliveries,
  lockDispatchState,
  peekDispatch,
  pendingQueueKeys,
  saveDispatchState,
  type DispatchState,
  type Gap,
  type OutboxEvent,
} from './dispatch.repo.js';
import { enqueueDelivery, newJobToken } from './delivery.service.js';
import { lockEnabledEndpoints } from './webhooks.repo.js';
import { OUTBOX_CHANNEL } from '../events/index.js';
import { ALL_EVENTS, TEST_EVENT_TYPE, type EndpointRecord } from './webhooks.types.js';

/** Events read per run; a full batch makes the next run start at once. */
export const DISPATCH_BATCH = 500;
/** SQLite's poll, and PostgreSQL's safety net behind NOTIFY; idle polls only read. */
export const DEFAULT_DISPATCH_INTERVAL_MS = 1000;
export const DEFAULT_GAP_GRACE_MS = 10 * 60 * 1000;
/** A hole wider than this is not transactions in flight (a pool holds a few dozen) but deleted rows. */
const MAX_GAP_SPAN = 1000;
const MAX_GAPS = 5000;

export interface DispatchOptions {
  intervalMs: number;
  gapGraceMs: number;
}

/**
 * Deliveries of one endpoint with the same key are sent one at a time, oldest event first. Events about
 * one product (or one export) share a key, so they arrive in the order they were created.
 */
export function orderingKey(event: Pick<OutboxEvent, 'id' | 'type' | 'data'>): string {
  let objectId: unknown;
  try {
    objectId = (JSON.parse(event.data) as { object?: { id?: unknown } }).object?.id;
  } catch {
    objectId = undefined;
  }
  const kind = event.type.split('.')[0];
  return typeof objectId === 'string' && objectId ? `${kind}:${objectId}` : `event:${event.id}`;
}

export function subscribes(endpoint: Pick<EndpointRecord, 'events'>, type: string): boolean {
  if (type === TEST_EVENT_TYPE) return false;
  return endpoint.events.includes(ALL_EVENTS) || endpoint.events.includes(type);
}

/**
 * Where the scan stands after reading `fresh` (seq > scannedSeq, ascending) and finding `late` among
 * the known gaps. On PostgreSQL a bigserial value is taken at insert and becomes visible at commit, so
 * seq 11 can be readable while seq 10's transaction is still open. Each skipped seq is remembered and
 * looked for again on every run until it shows up or `graceMs` passes (then it was rolled back).
 */
export function advanceScan(state: Pick<DispatchState, 'scannedSeq' | 'gaps'>, fresh: number[], late: number[], nowMs: number, graceMs: number) {
  const found = new Set(late);
  const gaps: Gap[] = state.gaps.filter((g) => !found.has(g.seq) && nowMs - Date.parse(g.since) < graceMs);
  const since = new Date(nowMs).toISOString();
  let previous = state.scannedSeq;
  for (const seq of fresh) {
    if (seq - previous - 1 <= MAX_GAP_SPAN) for (let s = previous + 1; s < seq; s++) gaps.push({ seq: s, since });
    previous = Math.max(previous, seq);
  }
  return { scannedSeq: previous, gaps: gaps.slice(-MAX_GAPS) };
}

/**
 * Creates the deliveries of these events (idempotent: one per endpoint and event) and enqueues a job
 * for each that is at the head of its endpoint's queue for its product. The rest wait with no job and
 * are released when the delivery before them finishes.
 */
async function fanOut(deps: Deps, trx: Transaction<DB>, events: OutboxEvent[], at: string): Promise<number> {
  if (!events.length) return 0;
  const endpoints = await lockEnabledEndpoints(trx, [...new Set(events.map((e) => e.orgId))]);
  if (!endpoints.length) return 0;
  const existing = await existingDeliveryKeys(trx, events.map((e) => e.id));
  const candidates: { endpoint: EndpointRecord; event: OutboxEvent; key: string }[] = [];
  for (const event of events) {
    const key = orderingKey(event);
    for (const endpoint of endpoints) {
      if (endpoint.orgId !== event.orgId || !subscribes(endpoint, event.type)) continue;
      // An endpoint receives the events that happened after it was created, never history.
      if (endpoint.createdAt > event.createdAt || existing.has(`${endpoint.id} ${event.id}`)) continue;
      candidates.push({ endpoint, event, key });
    }
  }
  if (!candidates.length) return 0;
  const queued = await pendingQueueKeys(
    trx,
    [...new Set(candidates.map((c) => c.endpoint.id))],
    [...new Set(candidates.map((c) => c.key))],
  );
  const rows: Insertable<DB['webhook_deliveries']>[] = [];
  for (const { endpoint, event, key } of candidates) {
    const queue = `${endpoint.id} ${key}`;
    const token = queued.has(queue) ? null : newJobToken();
    queued.add(queue);
    rows.push({
      id: newId('whd'),
      endpoint_id: endpoint.id,
      org_id: event.orgId,
      event_id: event.id,
      event_seq: event.seq,
      event_type: event.type,
      ordering_key: key,
      status: 'pending',
      failure_reason: null,
      attempt_count: 0,
      next_attempt_at: token ? at : null,
      last_response_status: null,
      job_token: token,
      created_at: at,
      updated_at: at,
    });
  }
  await insertDeliveries(trx, rows);
  for (const row of rows) if (row.job_token) await enqueueDelivery(deps, trx, row.id, { token: row.job_token });
  return rows.length;
}

/** One step of the scan inside the caller's transaction, which holds the dispatcher's row. */
async function dispatchBatch(deps: Deps, trx: Transaction<DB>, state: DispatchState, at: string, graceMs: number) {
  const late = await eventsWithSeqs(trx, state.gaps.map((g) => g.seq));
  const fresh = await eventsAfter(trx, state.scannedSeq, DISPATCH_BATCH);
  const next = advanceScan(state, fresh.map((e) => e.seq), late.map((e) => e.seq), Date.parse(at), graceMs);
  // Late events are older than the fresh ones; one product's events never straddle a gap (see docs).
  const created = await fanOut(deps, trx, [...late, ...fresh], at);
  return { state: { ...state, ...next }, full: fresh.length === DISPATCH_BATCH, created };
}

/** Runs the scan once, outside the job chain (tests, and anything that wants events out now). */
export async function dispatchPending(deps: Deps, graceMs = DEFAULT_GAP_GRACE_MS): Promise<number> {
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    const state = await lockDispatchState(trx, at);
    const result = await dispatchBatch(deps, trx, state, at, graceMs);
    await saveDispatchState(trx, result.state, at);
    return result.created;
  });
}

/**
 * Scans the outbox only when there is something to scan: a newer event than the stored position, or a
 * remembered gap that has shown up or expired. An idle dispatcher reads two rows and writes nothing.
 * Returns true when a full batch was read (more may be waiting).
 */
export async function dispatchIfPending(deps: Deps, graceMs = DEFAULT_GAP_GRACE_MS): Promise<boolean> {
  const peek = await peekDispatch(deps.database.db);
  const now = deps.clock.now().getTime();
  let pending = peek.newestSeq > peek.scannedSeq || peek.gaps.some((g) => now - Date.parse(g.since) >= graceMs);
  if (!pending && peek.gaps.length) pending = (await eventsWithSeqs(deps.database.db, peek.gaps.map((g) => g.seq))).length > 0;
  if (!pending) return false;
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    const state = await lockDispatchState(trx, at);
    const result = await dispatchBatch(deps, trx, state, at, graceMs);
    await saveDispatchState(trx, result.state, at);
    return result.full;
  });
}

/**
 * The worker's dispatcher: wakes when an event commits (PostgreSQL NOTIFY) or every `intervalMs` (SQLite,
 * and a safety net for a missed notification), and fans new events out to deliveries. Several workers may
 * run one each: the state row's lock makes their scans take turns. Idle, it writes nothing.
 */
export function startDispatcher(deps: Deps, opts: DispatchOptions & { listen?: boolean }): () => Promise<void> {
  let stopped = false;
  let wake: (() => void) | null = null;
  let woken = false;
  const poke = () => {
    woken = true;
    wake?.();
  };
  const unlisten = opts.listen === false ? Promise.resolve(null) : deps.database.listen(OUTBOX_CHANNEL, poke).catch(() => null);
  const loop = (async () => {
    await unlisten;
    while (!stopped) {
      woken = false;
      try {
        while (!stopped && (await dispatchIfPending(deps, opts.gapGraceMs)));
      } catch (err) {
        if (!stopped) deps.logger.warn({ err }, 'webhook dispatch failed; will retry');
      }
      if (stopped || woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, opts.intervalMs);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
    }
  })();
  return async () => {
    stopped = true;
    wake?.();
    await loop;
    await (await unlisten)?.();
  };
}
