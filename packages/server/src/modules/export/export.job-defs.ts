import { Type } from '@sinclair/typebox';
import { defineJob } from '../../platform/jobs/define.js';

/** Finishes a queued export (enqueued by export.service.ts; its handler is in export.jobs.ts). */
export const finishExportJob = defineJob({
  name: 'export.finish',
  payload: Type.Object({ export_id: Type.String() }),
  retryLimit: 3,
});
