import { Type } from '@sinclair/typebox';
import { defineJob } from '../../platform/jobs/define.js';

/**
 * One signed POST of one delivery (enqueued by delivery.service.ts; its handler is in webhooks.jobs.ts).
 * The token makes it the one job allowed to send that delivery. Job-level retries cover database trouble
 * only; HTTP failures are rescheduled on the webhook schedule.
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
});
