import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { defineJob, handleJob } from '../../platform/jobs/define.js';
import { deliver } from './delivery.service.js';
import { DEFAULT_DISPATCH_INTERVAL_MS, DEFAULT_GAP_GRACE_MS, startDispatcher } from './dispatch.service.js';
import { deliverWebhookJob } from './webhooks.job-defs.js';
import { DEFAULT_TIMEOUT_MS, type WebhookWorkerOptions } from './webhooks.types.js';

interface DeliverContext {
  deps: Deps;
  options: { timeoutMs: number; random: () => number };
}

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
  deps.jobs.register(
    handleJob(deliverWebhookJob, { handle: async ({ deps, options }: DeliverContext, data) => deliver(deps, data, options) }),
    { deps, options: deliverOptions },
  );

  deps.background.add(startDispatcher(deps, dispatchOptions));
}
