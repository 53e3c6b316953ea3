import { notify } from '../../platform/db/index.js';
import type { Executor } from '../../db.js';
import { newId } from '../../platform/ids.js';

export const EVENT_TYPES = [
  'product.created',
  'product.updated',
  'product.deleted',
  'product.published',
  'product.model.ready',
  'product.model.failed',
  'product.images.ready',
  'export.ready',
  'experiment.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Wakes the webhook dispatchers when an event commits. */
export const OUTBOX_CHANNEL = 'plinth_outbox';

/**
 * The outbox: an event row is written through the caller's executor, so it exists exactly when the
 * change that caused it was committed. The webhook worker delivers from here.
 */
export async function emitEvent(db: Executor, orgId: string, type: EventType, object: unknown, at: string): Promise<string> {
  const id = newId('evt');
  await db
    .insertInto('events')
    .values({ id, org_id: orgId, type, data: JSON.stringify({ object }), created_at: at })
    .execute();
  await notify(db, OUTBOX_CHANNEL);
  return id;
}
