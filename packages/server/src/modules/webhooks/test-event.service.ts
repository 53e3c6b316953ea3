import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../core/errors.js';
import { inTransaction } from '../../platform/db/index.js';
import { newId } from '../../platform/ids.js';
import type { Principal } from '../../core/principal.js';
import { enqueueDelivery, newJobToken } from './delivery.service.js';
import { insertDeliveries } from './dispatch.repo.js';
import { attemptsOf, findDelivery, findEndpoint, lockEndpoint } from './webhooks.repo.js';
import { TEST_EVENT_TYPE } from './webhooks.types.js';

/**
 * A `webhook.test` event for one endpoint, so a developer can check their receiver and its signature
 * check without changing a product. It is written to the outbox like any event (the delivery shows
 * in the list and can be retried) and delivered to this endpoint only: the dispatcher never fans it
 * out (see subscribes()).
 */
export async function sendTestEvent(deps: Deps, principal: Principal, endpointId: string, orgId?: string) {
  const orgIds = orgId ? (principal.orgIds.includes(orgId) ? [orgId] : []) : principal.orgIds;
  const found = await findEndpoint(deps.database.db, endpointId, orgIds);
  if (!found) throw notFound('webhook endpoint');
  const at = deps.clock.now().toISOString();
  const deliveryId = newId('whd');
  await inTransaction(deps.database.db, async (trx) => {
    const endpoint = await lockEndpoint(trx, found.id);
    if (!endpoint) throw notFound('webhook endpoint');
    if (!endpoint.enabled) {
      throw new AppError('conflict', 'The endpoint is disabled; enable it before sending a test event.', { reason: 'endpoint_disabled' });
    }
    const eventId = newId('evt');
    const data = { object: { object: 'webhook_test', endpoint_id: endpoint.id, message: 'A test event sent from Plinth.' } };
    const event = await trx
      .insertInto('events')
      .values({ id: eventId, org_id: endpoint.orgId, type: TEST_EVENT_TYPE, data: JSON.stringify(data), created_at: at })
      .returning('seq')
      .executeTakeFirstOrThrow();
    const token = newJobToken();
    await insertDeliveries(trx, [
      {
        id: deliveryId,
        endpoint_id: endpoint.id,
        org_id: endpoint.orgId,
        event_id: eventId,
        event_seq: Number(event.seq),
        event_type: TEST_EVENT_TYPE,
        // Its own queue: a test never waits behind, or holds up, a product's events.
        ordering_key: `event:${eventId}`,
        status: 'pending',
        failure_reason: null,
        attempt_count: 0,
        next_attempt_at: at,
        last_response_status: null,
        job_token: token,
        created_at: at,
        updated_at: at,
      },
    ]);
    await enqueueDelivery(deps, trx, deliveryId, { token });
  });
  const delivery = (await findDelivery(deps.database.db, deliveryId, found.id))!;
  const attempts = (await attemptsOf(deps.database.db, [deliveryId])).get(deliveryId) ?? [];
  return { delivery, attempts };
}
