import sharp from 'sharp';
import type { Deps } from './deps.js';
import { registerExportJobs } from './modules/export/export.jobs.js';
import { registerGenerationJobs } from './modules/generation/generation.jobs.js';
import { registerIngestJobs } from './modules/ingest/ingest.jobs.js';
import { warmPosterRenderer } from './modules/ingest/index.js';
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

/**
 * What a worker's first import would otherwise wait for, started in the background as the worker starts (by
 * `plinth serve` and `plinth worker`, not by buildApp, so tests that build an app launch no browser): a sandbox
 * child with the import's code loaded and run once, and the browser its first poster renders in (seconds:
 * Chromium's launch and the studio lighting's environment map). Never throws; what fails to warm is paid by the
 * first job, as before. closeDeps ends both, warmed or still starting.
 */
export async function warmWorker(deps: Deps): Promise<void> {
  const timed = async (what: string, warm: () => Promise<unknown>) => {
    const started = Date.now();
    try {
      if ((await warm()) !== false) deps.logger.info({ ms: Date.now() - started }, `${what} warmed`);
    } catch (err) {
      if (!deps.background.isClosed) deps.logger.warn({ err }, `${what} warm-up failed; the first job pays for it`);
    }
  };
  await Promise.all([timed('media sandbox', () => deps.media.run('sandbox.warm', {})), timed('renderer', () => warmPosterRenderer(deps))]);
}
