import type { Deps } from '../../deps.js';
import { deliver, type DeliverJobData } from './delivery.service.js';
import { DEFAULT_DISPATCH_INTERVAL_MS, DEFAULT_GAP_GRACE_MS, startDispatcher } from './dispatch.service.js';
import { DEFAULT_TIMEOUT_MS, DELIVER_QUEUE, DISPATCH_QUEUE, type WebhookWorkerOptions } from './webhooks.types.js';

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

  // Earlier versions ran the dispatcher as a self-renewing job chain; a link left from before an upgrade ends here.
  deps.jobs.register(DISPATCH_QUEUE, async () => {});
  deps.jobs.register(DELIVER_QUEUE, async (job) => {
    await deliver(deps, job.data as unknown as DeliverJobData, deliverOptions);
  });

  deps.background.add(startDispatcher(deps, dispatchOptions));
}
