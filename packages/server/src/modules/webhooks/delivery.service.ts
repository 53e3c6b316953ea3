import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../platform/db/index.js';
import type { DB } from '../../db.js';
import { FetchError } from '../../platform/fetch/types.js';
import { VERSION } from '../../version.js';
import { eventById, type OutboxEvent } from './dispatch.repo.js';
import { signatureHeaders, signingSecrets } from './signing.js';
import {
  failPendingOf,
  findDelivery,
  finishAttempt,
  headOfQueue,
  insertAttempt,
  lockEndpoint,
  markInterrupted,
  updateDelivery,
  updateEndpointRow,
} from './webhooks.repo.js';
import { deliverWebhookJob } from './webhooks.job-defs.js';
import {
  RETRY_SCHEDULE_SECONDS,
  type AttemptOutcome,
  type DeliveryRecord,
  type EndpointRecord,
  type FailureReason,
} from './webhooks.types.js';

/** A deliver job names its delivery and the token that makes it the one job allowed to send it. */
export interface DeliverJobData {
  delivery_id: string;
  token: string;
  /** a re-send asked for through the API: one attempt, no retry schedule of its own */
  manual?: boolean;
}

/** Receivers answer with a short acknowledgement; nothing in the body is used. */
const MAX_RESPONSE_BYTES = 256 * 1024;

export const newJobToken = () => randomBytes(12).toString('base64url');

/**
 * Hands a delivery to a new job. The token written here supersedes any older job of the same delivery
 * (a retry asked for by hand, a re-dispatch), which then finds a different token and does nothing.
 */
export async function enqueueDelivery(
  deps: Deps,
  trx: Transaction<DB>,
  deliveryId: string,
  opts: { token?: string; delaySeconds?: number; manual?: boolean } = {},
): Promise<string> {
  const token = opts.token ?? newJobToken();
  if (!opts.token) await updateDelivery(trx, deliveryId, { job_token: token });
  const data: DeliverJobData = { delivery_id: deliveryId, token, ...(opts.manual ? { manual: true } : {}) };
  await deps.jobs.enqueue(trx, deliverWebhookJob, data, { delaySeconds: opts.delaySeconds ?? 0 });
  return token;
}

/** Once a delivery leaves `pending`, the next one of its endpoint and product may go. */
async function releaseNext(deps: Deps, trx: Transaction<DB>, endpointId: string, orderingKey: string, at: string) {
  const head = await headOfQueue(trx, endpointId, orderingKey);
  if (head && head.jobToken === null) {
    await updateDelivery(trx, head.id, { next_attempt_at: at, updated_at: at });
    await enqueueDelivery(deps, trx, head.id);
  }
}

async function fail(deps: Deps, trx: Transaction<DB>, d: DeliveryRecord, reason: FailureReason, at: string) {
  await updateDelivery(trx, d.id, { status: 'failed', failure_reason: reason, job_token: null, next_attempt_at: null, updated_at: at });
  await releaseNext(deps, trx, d.endpointId, d.orderingKey, at);
}

interface Claim {
  delivery: DeliveryRecord;
  endpoint: EndpointRecord;
  event: OutboxEvent;
  number: number;
}

/**
 * Decides, under the endpoint's lock, whether this job may send now, and writes the attempt's start
 * before anything leaves the process: a crash after the send then shows as an interrupted attempt, and
 * the job's re-run sends again with the same webhook-id (at least once, never lost).
 */
async function claimAttempt(deps: Deps, job: DeliverJobData): Promise<Claim | null> {
  const peek = await findDelivery(deps.database.db, job.delivery_id);
  if (!peek) return null;
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    const endpoint = await lockEndpoint(trx, peek.endpointId);
    const d = await findDelivery(trx, job.delivery_id);
    if (!endpoint || !d || d.status !== 'pending' || d.jobToken !== job.token) return null;
    if (!endpoint.enabled) {
      await fail(deps, trx, d, 'endpoint_disabled', at);
      return null;
    }
    const head = await headOfQueue(trx, d.endpointId, d.orderingKey);
    if (head && head.id !== d.id) {
      // An earlier event of the same product is still pending: wait; that delivery releases this one.
      await updateDelivery(trx, d.id, { job_token: null, next_attempt_at: null, updated_at: at });
      return null;
    }
    const event = await eventById(trx, d.eventId);
    if (!event) {
      await fail(deps, trx, d, 'event_missing', at);
      return null;
    }
    await markInterrupted(trx, d.id, at);
    const number = d.attemptCount + 1;
    await insertAttempt(trx, d.id, number, at);
    await updateDelivery(trx, d.id, { attempt_count: number, updated_at: at });
    return { delivery: d, endpoint, event, number };
  });
}

/** The body every attempt sends: the event, byte for byte the same on each attempt. */
export function eventBody(event: OutboxEvent): string {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    data = { object: null };
  }
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.createdAt, org_id: event.orgId, data });
}

async function send(deps: Deps, claim: Claim, timeoutMs: number): Promise<AttemptOutcome> {
  const now = deps.clock.now();
  const body = eventBody(claim.event);
  const headers = {
    'content-type': 'application/json',
    'user-agent': `Plinth-Webhooks/${VERSION}`,
    ...signatureHeaders(signingSecrets(claim.endpoint, now), claim.event.id, body, now),
  };
  const started = Date.now();
  try {
    // The guarded fetcher resolves and vets the address on every call: a name that pointed at a public
    // address when the endpoint was created and at a private one now is refused here.
    const res = await deps.fetcher.fetch(claim.endpoint.url, {
      method: 'POST',
      headers,
      body,
      timeoutMs,
      followRedirects: false,
      failOnHttpError: false,
      maxBytes: MAX_RESPONSE_BYTES,
    });
    const ok = res.status >= 200 && res.status < 300;
    return { responseStatus: res.status, durationMs: Date.now() - started, error: ok ? null : { code: 'http_status', message: `HTTP ${res.status}` } };
  } catch (err) {
    const error = err instanceof FetchError ? { code: err.code, message: err.message } : { code: 'network', message: (err as Error).message ?? String(err) };
    return { responseStatus: null, durationMs: Date.now() - started, error };
  }
}

export interface DeliverOptions {
  timeoutMs: number;
  random: () => number;
}

/** Seconds before the next attempt after failed attempt `number`, or null when none is left. */
export function retryDelaySeconds(number: number, scale: number, random: () => number): number | null {
  const base = RETRY_SCHEDULE_SECONDS[number - 1];
  if (base === undefined) return null;
  // Up to 10 % jitter so endpoints that failed together do not all come back at the same second.
  return base * scale * (1 + 0.1 * random());
}

async function recordOutcome(deps: Deps, job: DeliverJobData, claim: Claim, outcome: AttemptOutcome, opts: DeliverOptions) {
  const now = deps.clock.now();
  const at = now.toISOString();
  const status = outcome.responseStatus;
  await inTransaction(deps.database.db, async (trx) => {
    const endpoint = await lockEndpoint(trx, claim.delivery.endpointId);
    const d = await findDelivery(trx, claim.delivery.id);
    if (!endpoint || !d) return; // the endpoint was deleted meanwhile
    // Still ours unless the endpoint was disabled or a newer job took the delivery over meanwhile;
    // either way the attempt itself is logged.
    const current = d.status === 'pending' && d.jobToken === job.token;
    let nextAttemptAt: string | null = null;
    if (status === 410) {
      // 410 Gone is the receiver saying "stop": the endpoint is disabled and nothing more is sent.
      await updateEndpointRow(trx, endpoint.id, { enabled: 0, disabled_reason: 'gone', updated_at: at });
      if (current) await updateDelivery(trx, d.id, { status: 'failed', failure_reason: 'endpoint_gone', job_token: null, next_attempt_at: null });
      await failPendingOf(trx, endpoint.id, 'endpoint_disabled', at);
    } else if (current && outcome.error === null) {
      await updateDelivery(trx, d.id, { status: 'succeeded', failure_reason: null, job_token: null, next_attempt_at: null });
      await releaseNext(deps, trx, d.endpointId, d.orderingKey, at);
    } else if (current) {
      const delay = job.manual ? null : retryDelaySeconds(claim.number, deps.config.webhookRetryScale, opts.random);
      if (delay === null) {
        await fail(deps, trx, d, 'attempts_exhausted', at);
      } else {
        nextAttemptAt = new Date(now.getTime() + delay * 1000).toISOString();
        await updateDelivery(trx, d.id, { next_attempt_at: nextAttemptAt });
        await enqueueDelivery(deps, trx, d.id, { delaySeconds: delay });
      }
    }
    await finishAttempt(trx, d.id, claim.number, {
      finished_at: at,
      duration_ms: outcome.durationMs,
      response_status: status,
      error_code: outcome.error?.code ?? null,
      error_message: outcome.error?.message ?? null,
      next_attempt_at: nextAttemptAt,
    });
    await updateDelivery(trx, d.id, { last_response_status: status, updated_at: at });
  });
}

/** One run of a deliver job: claim, send outside any transaction, record. */
export async function deliver(deps: Deps, job: DeliverJobData, opts: DeliverOptions): Promise<void> {
  const claim = await claimAttempt(deps, job);
  if (!claim) return;
  const outcome = await send(deps, claim, opts.timeoutMs);
  await recordOutcome(deps, job, claim, outcome, opts);
}
