import sharp from 'sharp';
import type { Deps } from './deps.js';
import { registerExportJobs } from './modules/export/export.jobs.js';
import { registerGenerationJobs } from './modules/generation/generation.jobs.js';
import { registerIngestJobs } from './modules/ingest/ingest.jobs.js';
import { registerProductJobs } from './modules/products/products.jobs.js';
import { registerWebhookJobs } from './modules/webhooks/webhooks.jobs.js';
import { startRetention } from './modules/retention/index.js';
import { startUploadSweeper } from './modules/uploads/index.js';

/**
 * Registers every module's job handlers on the queue. Each capability adds its `<area>.jobs.ts`
 * here in one line.
 */
export function registerJobHandlers(deps: Deps): void {
  // sharp runs one thread by default on this kind of machine; use the cores we have.
  sharp.concurrency(Math.max(2, sharp.concurrency()));
  // libvips' operation cache keeps decoded images around after a job; a worker rarely reuses them.
  sharp.cache({ memory: 32, files: 0, items: 64 });
  registerIngestJobs(deps);
  registerProductJobs(deps);
  registerExportJobs(deps);
  registerGenerationJobs(deps);
  registerWebhookJobs(deps);
  deps.background.add(startRetention(deps));
  deps.background.add(startUploadSweeper(deps));
}
