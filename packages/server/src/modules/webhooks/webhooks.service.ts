import type { Deps } from '../../deps.js';
import type { Executor } from '../../db.js';
import { AppError, notFound, validationFailed } from '../../core/errors.js';
import { readOrgs, writeOrg } from '../../core/reach.js';
import type { Effect } from '../../http/idempotency.js';
import { inTransaction } from '../../platform/db/index.js';
import { createAllowList } from '../../platform/fetch/address-policy.js';
import { FetchError } from '../../platform/fetch/types.js';
import { newId } from '../../platform/ids.js';
import type { Principal } from '../../core/principal.js';
import { enqueueDelivery } from './delivery.service.js';
import { newSecret } from './signing.js';
import {
  purgeFinishedDeliveries,
  attemptsOf,
  deleteEndpointRow,
  failPendingOf,
  findDelivery,
  findEndpoint,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  lockEndpoint,
  updateDelivery,
  updateEndpointRow,
} from './webhooks.repo.js';
import { ALL_EVENTS, PREVIOUS_SECRET_TTL_MS, type DeliveryStatus, type EndpointRecord } from './webhooks.types.js';

export interface EndpointInput {
  url?: string;
  description?: string | null;
  events?: string[];
  enabled?: boolean;
}

/**
 * https only, except for hosts in PLINTH_FETCH_ALLOW_HOSTS (local development); and the address must
 * be public after DNS, checked now for a clear 422 and again by the fetcher on every delivery.
 */
async function assertDeliverable(deps: Deps, raw: string): Promise<void> {
  const refuse = (message: string) => validationFailed([{ path: 'body.url', message }], 'The webhook URL cannot be used.');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('must be an absolute https URL');
  }
  const allowListed = createAllowList(deps.config.fetchAllowHosts)(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowListed)) throw refuse('must use https');
  try {
    await deps.fetcher.check(raw);
  } catch (err) {
    if (!(err instanceof FetchError)) throw err;
    const why: Record<string, string> = {
      blocked_address: 'points at a private, loopback, link-local or metadata address',
      bad_url: 'must be an https URL without credentials',
      dns_failed: 'has a host name that does not resolve',
    };
    throw refuse(why[err.code] ?? err.message);
  }
}

/** `["*"]` swallows every other entry; otherwise the list is kept in the caller's order, without repeats. */
function normaliseEvents(events: string[]): string[] {
  return events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)];
}

/** Reads and id-addressed writes reach every organization of the caller, or the one `org_id` names. */
function orgsFor(principal: Principal, orgId: string | undefined): string[] {
  return orgId ? [writeOrg(principal, orgId)] : principal.orgIds;
}

async function endpointOr404(deps: Deps, principal: Principal, id: string, orgId?: string): Promise<EndpointRecord> {
  const endpoint = await findEndpoint(deps.database.db, id, orgsFor(principal, orgId));
  if (!endpoint) throw notFound('webhook endpoint');
  return endpoint;
}

export async function createEndpoint(
  deps: Deps,
  principal: Principal,
  body: EndpointInput & { url: string; org_id?: string },
  effect?: Effect<{ endpoint: EndpointRecord; secret: string }>,
): Promise<{ endpoint: EndpointRecord; secret: string }> {
  const orgId = writeOrg(principal, body.org_id);
  await assertDeliverable(deps, body.url);
  const at = deps.clock.now().toISOString();
  const secret = newSecret();
  const row = {
    id: newId('wh'),
    org_id: orgId,
    url: body.url,
    description: body.description ?? null,
    events: JSON.stringify(normaliseEvents(body.events ?? [ALL_EVENTS])),
    enabled: body.enabled === false ? 0 : 1,
    disabled_reason: null,
    secret,
    previous_secret: null,
    previous_secret_expires_at: null,
    created_at: at,
    updated_at: at,
  };
  return inTransaction(deps.database.db, async (trx) => {
    await insertEndpoint(trx, row);
    const created = { endpoint: (await findEndpoint(trx, row.id, [orgId]))!, secret };
    await effect?.(trx, created);
    return created;
  });
}

export async function listEndpointsFor(deps: Deps, principal: Principal, q: { org_id?: string; scope?: 'all'; limit: number; offset: number }) {
  return listEndpoints(deps.database.db, readOrgs(principal, q), q);
}

export async function getEndpoint(deps: Deps, principal: Principal, id: string, orgId?: string): Promise<EndpointRecord> {
  return endpointOr404(deps, principal, id, orgId);
}

/**
 * Disabling ends the endpoint's pending deliveries (failure_reason endpoint_disabled); enabling again
 * resumes with new events only. A new URL is checked like a new endpoint's.
 */
export async function updateEndpoint(deps: Deps, principal: Principal, id: string, body: EndpointInput, orgId?: string): Promise<EndpointRecord> {
  const found = await endpointOr404(deps, principal, id, orgId);
  if (body.url !== undefined && body.url !== found.url) await assertDeliverable(deps, body.url);
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    const endpoint = await lockEndpoint(trx, id);
    if (!endpoint) throw notFound('webhook endpoint');
    await updateEndpointRow(trx, id, {
      ...(body.url !== undefined && { url: body.url }),
      ...(body.description !== undefined && { description: body.description }),
      ...(body.events !== undefined && { events: JSON.stringify(normaliseEvents(body.events)) }),
      ...(body.enabled !== undefined && { enabled: body.enabled ? 1 : 0, disabled_reason: null }),
      updated_at: at,
    });
    if (body.enabled === false && endpoint.enabled) await failPendingOf(trx, id, 'endpoint_disabled', at);
    return (await findEndpoint(trx, id, [endpoint.orgId]))!;
  });
}

export async function deleteEndpoint(deps: Deps, principal: Principal, id: string, orgId?: string): Promise<void> {
  const endpoint = await endpointOr404(deps, principal, id, orgId);
  await deleteEndpointRow(deps.database.db, endpoint.id);
}

/** A new secret; the old one keeps signing next to it for 24 h so receivers can switch without losing events. */
export async function rotateSecret(
  deps: Deps,
  principal: Principal,
  id: string,
  orgId?: string,
  effect?: Effect<{ endpoint: EndpointRecord; secret: string; previousSecretExpiresAt: string }>,
) {
  const found = await endpointOr404(deps, principal, id, orgId);
  const now = deps.clock.now();
  const secret = newSecret();
  const expiresAt = new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS).toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    await updateEndpointRow(trx, found.id, {
      secret,
      previous_secret: found.secret,
      previous_secret_expires_at: expiresAt,
      updated_at: now.toISOString(),
    });
    const rotated = { endpoint: (await findEndpoint(trx, found.id, [found.orgId]))!, secret, previousSecretExpiresAt: expiresAt };
    await effect?.(trx, rotated);
    return rotated;
  });
}

export async function listDeliveriesFor(
  deps: Deps,
  principal: Principal,
  id: string,
  q: { org_id?: string; status?: DeliveryStatus[]; limit: number; offset: number },
) {
  const endpoint = await endpointOr404(deps, principal, id, q.org_id);
  const { data, total } = await listDeliveries(deps.database.db, endpoint.id, q.status, q);
  const attempts = await attemptsOf(deps.database.db, data.map((d) => d.id));
  return { data: data.map((d) => ({ delivery: d, attempts: attempts.get(d.id) ?? [] })), total };
}

/**
 * Sends one delivery again now. A pending one just skips the wait (its schedule goes on); a finished
 * one gets a single extra attempt. Ordering still holds: it waits if an earlier event of the same
 * product is pending for this endpoint.
 */
export async function retryDelivery(deps: Deps, principal: Principal, id: string, deliveryId: string, orgId?: string) {
  const found = await endpointOr404(deps, principal, id, orgId);
  const at = deps.clock.now().toISOString();
  await inTransaction(deps.database.db, async (trx) => {
    const endpoint = await lockEndpoint(trx, found.id);
    const delivery = endpoint && (await findDelivery(trx, deliveryId, found.id));
    if (!endpoint || !delivery) throw notFound('webhook delivery');
    if (!endpoint.enabled) {
      throw new AppError('conflict', 'The endpoint is disabled; enable it before retrying its deliveries.', { reason: 'endpoint_disabled' });
    }
    await updateDelivery(trx, delivery.id, { status: 'pending', failure_reason: null, next_attempt_at: at, updated_at: at });
    await enqueueDelivery(deps, trx, delivery.id, { manual: delivery.status !== 'pending' });
  });
  const delivery = (await findDelivery(deps.database.db, deliveryId, found.id))!;
  const attempts = (await attemptsOf(deps.database.db, [delivery.id])).get(delivery.id) ?? [];
  return { delivery, attempts };
}

/** Deletes up to `batch` finished deliveries older than `before` (retention); answers how many went. */
export const deleteFinishedDeliveriesBefore = (db: Executor, before: string, batch: number) => purgeFinishedDeliveries(db, before, batch);
