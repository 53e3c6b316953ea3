import { Type } from '@sinclair/typebox';
import { defineJob } from '../../platform/jobs/define.js';

/** Where a product's files are stored: every key of the product starts with it. */
export const productPrefix = (p: { orgId: string; id: string }) => `orgs/${p.orgId}/products/${p.id}/`;

/** Deletes a deleted product's files; the rows went in the delete's own transaction (handler: products.jobs.ts). */
export const purgeProductFilesJob = defineJob({
  name: 'products.purge-files',
  payload: Type.Object({ org_id: Type.String(), product_id: Type.String() }),
  retryLimit: 5,
});
