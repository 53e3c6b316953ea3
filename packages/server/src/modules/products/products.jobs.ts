import type { Deps } from '../../deps.js';
import { handleJob } from '../../platform/jobs/define.js';
import { productPrefix, purgeProductFilesJob } from './products.job-defs.js';

export function registerProductJobs(deps: Deps) {
  deps.jobs.register(
    handleJob(purgeProductFilesJob, {
      handle: async (deps: Deps, data) => {
        await deps.storage.deletePrefix(productPrefix({ orgId: data.org_id, id: data.product_id }));
      },
    }),
    deps,
  );
}
