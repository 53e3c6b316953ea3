import { Type } from '@sinclair/typebox';
import { defineJob } from '../../platform/jobs/define.js';

/** Deletes a deleted product's files; the rows went in the delete's own transaction (handler: products.jobs.ts). */
export const purgeProductFilesJob = defineJob({
  name: 'products.purge-files',
  payload: Type.Object({ org_id: Type.String(), product_id: Type.String() }),
  retryLimit: 5,
});
