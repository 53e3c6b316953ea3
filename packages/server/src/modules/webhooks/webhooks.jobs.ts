import type { Deps } from '../../deps.js';
import { deliver, type DeliverJobData } from './delivery.service.js';
import { DEFAULT_DISPATCH_INTERVAL_MS, DEFAULT_GAP_GRACE_MS, dispatchTick, startDispatchChain } from './dispatch.service.js';
import { DEFAULT_TIMEOUT_MS, DELIVER_QUEUE, DISPATCH_QUEUE, type WebhookWorkerOptions } from './webhooks.types.js';

/**
 * The worker's half of webhooks:
 * - `webhooks.dispatch`, a self-renewing job chain that reads the events outbox after its stored
 *   position and creates one delivery per subscribed endpoint, in the same transaction;
 * - `webhooks.deliver`, one signed POST per run, rescheduled on the retry schedule.
 * Starting a worker starts a fresh dispatch chain (the previous one, if any, stops by itself).
 */
export function registerWebhookJobs(deps: Deps, options: WebhookWorkerOptions = {}): void {
  const deliverOptions = { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, random: options.random ?? Math.random };
  const dispatchOptions = {
    intervalMs: options.dispatchIntervalMs ?? DEFAULT_DISPATCH_INTERVAL_MS,
    gapGraceMs: options.gapGraceMs ?? DEFAULT_GAP_GRACE_MS,
  };

  deps.jobs.register(DISPATCH_QUEUE, async (job) => {
    await dispatchTick(deps, String(job.data.token ?? ''), dispatchOptions);
  });
  deps.jobs.register(DELIVER_QUEUE, async (job) => {
    await deliver(deps, job.data as unknown as DeliverJobData, deliverOptions);
  });

  // Registration is synchronous; the chain's first job is written as soon as the database answers.
  startDispatchChain(deps).catch((err: unknown) => deps.logger.error({ err }, 'could not start the webhook dispatcher'));
}
