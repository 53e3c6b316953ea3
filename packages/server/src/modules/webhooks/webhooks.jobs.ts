import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { defineJob } from '../../platform/jobs/define.js';
import { deliver } from './delivery.service.js';
import { DEFAULT_DISPATCH_INTERVAL_MS, DEFAULT_GAP_GRACE_MS, startDispatcher } from './dispatch.service.js';
import { DEFAULT_TIMEOUT_MS, type WebhookWorkerOptions } from './webhooks.types.js';

interface DeliverContext {
  deps: Deps;
  options: { timeoutMs: number; random: () => number };
}

/**
 * One signed POST of one delivery. The token makes it the one job allowed to send that delivery.
 * Job-level retries cover database trouble only; HTTP failures are rescheduled on the webhook schedule.
 */
export const deliverWebhookJob = defineJob({
  name: 'webhooks.deliver',
  payload: Type.Object({
    delivery_id: Type.String(),
    token: Type.String(),
    /** a re-send asked for through the API: one attempt, no retry schedule of its own */
    manual: Type.Optional(Type.Boolean()),
  }),
  retryLimit: 20,
  handle: async ({ deps, options }: DeliverContext, data) => deliver(deps, data, options),
});

/** Earlier versions ran the dispatcher as a self-renewing job chain; a link left from before an upgrade ends here. */
const legacyDispatchJob = defineJob({
  name: 'webhooks.dispatch',
  payload: Type.Object({}),
  retryLimit: 0,
  handle: async () => {},
});

/**
 * The worker's half of webhooks:
 * - the dispatcher, a loop beside the job workers that reads the events outbox after its stored position
 *   when an event commits, and creates one delivery per subscribed endpoint in the same transaction;
 * - `webhooks.deliver`, one signed POST per run, rescheduled on the retry schedule.
 */
export function registerWebhookJobs(deps: Deps, options: WebhookWorkerOptions = {}): void {
  const deliverOptions = { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, random: options.random ?? Math.random };
  const dispatchOptions = {
    intervalMs: options.dispatchIntervalMs ?? DEFAULT_DISPATCH_INTERVAL_MS,
    gapGraceMs: options.gapGraceMs ?? DEFAULT_GAP_GRACE_MS,
  };

  deps.jobs.register(legacyDispatchJob, undefined);
  deps.jobs.register(deliverWebhookJob, { deps, options: deliverOptions });

  deps.background.add(startDispatcher(deps, dispatchOptions));
}
