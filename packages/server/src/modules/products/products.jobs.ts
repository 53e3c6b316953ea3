import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { defineJob } from '../../platform/jobs/define.js';
import { productPrefix } from '../ingest/ingest.store.js';

/** Deletes a deleted product's files; the rows went in the delete's own transaction. */
export const purgeProductFilesJob = defineJob({
  name: 'products.purge-files',
  payload: Type.Object({ org_id: Type.String(), product_id: Type.String() }),
  retryLimit: 5,
  handle: async (deps: Deps, data) => {
    await deps.storage.deletePrefix(productPrefix({ orgId: data.org_id, id: data.product_id }));
  },
});

export function registerProductJobs(deps: Deps) {
  deps.jobs.register(purgeProductFilesJob, deps);
}
