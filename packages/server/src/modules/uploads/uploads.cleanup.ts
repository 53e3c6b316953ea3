import type { Deps } from '../../deps.js';
import { removeStaleTempFiles, uploadTempDir } from './uploads.receive.js';
import { deleteUnusedUpload, staleUploads } from './uploads.repo.js';

const BATCH = 500;
/** No upload takes an hour to arrive and be checked; an older temp file is a crashed process's leftover. */
const TEMP_MAX_AGE_MS = 3600 * 1000;

/**
 * Deletes uploads no product has used within the retention period (24 h by default): the row first,
 * and only while still unused, so a product that took the upload meanwhile keeps it; then the file.
 * Uploads a product uses are kept.
 */
export async function sweepUploads(deps: Deps): Promise<number> {
  await removeStaleTempFiles(uploadTempDir(deps.config.dataDir), TEMP_MAX_AGE_MS);
  const before = new Date(deps.clock.now().getTime() - deps.config.uploadRetentionSeconds * 1000).toISOString();
  let deleted = 0;
  for (;;) {
    const stale = await staleUploads(deps.database.db, before, BATCH);
    for (const u of stale) {
      if (!(await deleteUnusedUpload(deps.database.db, u.id))) continue;
      // A file left behind by a failed delete is unreachable (no row names it) and costs only disk.
      await deps.storage.delete(u.storageKey).catch((err: unknown) => deps.logger.warn({ err, key: u.storageKey }, 'upload file not deleted'));
      deleted++;
    }
    if (stale.length < BATCH) return deleted;
  }
}

/** Sweeps every `uploadSweepSeconds` in a worker process; several workers sweeping at once is harmless. */
export function startUploadSweeper(deps: Deps): () => Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = sweepUploads(deps)
      .then((n) => {
        if (n) deps.logger.info({ deleted: n }, 'uploads: unused uploads deleted');
      })
      .catch((err: unknown) => deps.logger.warn({ err }, 'upload sweep failed; will retry'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, deps.config.uploadSweepSeconds * 1000);
      });
  };
  timer = setTimeout(tick, 1000);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
