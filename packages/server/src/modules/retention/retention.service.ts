import type { Deps } from '../../deps.js';
import { deleteBeaconEventsBefore } from '../analytics/index.js';
import { deleteFinishedDeliveriesBefore } from '../webhooks/index.js';

const DAY_MS = 24 * 3600 * 1000;
/** Small batches keep each delete's locks short, so beacons and deliveries never wait behind a purge. */
export const RETENTION_BATCH = 5000;

export interface RetentionResult {
  beaconEvents: number;
  webhookDeliveries: number;
}

/**
 * Deletes what has outlived its window: raw beacon events (their counts stay in the rollups, so usage still
 * answers) and finished webhook deliveries with their attempts. Pending deliveries are never touched.
 * Idempotency records keep their own 24-hour sweep.
 */
export async function runRetention(deps: Deps, batch = RETENTION_BATCH): Promise<RetentionResult> {
  const now = deps.clock.now().getTime();
  const { beaconDays, webhookDays } = deps.config.retention;
  const result: RetentionResult = { beaconEvents: 0, webhookDeliveries: 0 };
  const beaconsBefore = new Date(now - beaconDays * DAY_MS).toISOString();
  for (let n = batch; n === batch; ) {
    n = await deleteBeaconEventsBefore(deps.database.db, beaconsBefore, batch);
    result.beaconEvents += n;
  }
  const deliveriesBefore = new Date(now - webhookDays * DAY_MS).toISOString();
  for (let n = batch; n === batch; ) {
    n = await deleteFinishedDeliveriesBefore(deps.database.db, deliveriesBefore, batch);
    result.webhookDeliveries += n;
  }
  return result;
}

/** Runs the purge every `intervalSeconds` in a worker process; several workers purging at once is harmless. */
export function startRetention(deps: Deps): () => Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = runRetention(deps)
      .then((r) => {
        if (r.beaconEvents || r.webhookDeliveries) deps.logger.info(r, 'retention: old records deleted');
      })
      .catch((err: unknown) => deps.logger.warn({ err }, 'retention run failed; will retry'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, deps.config.retention.intervalSeconds * 1000);
      });
  };
  timer = setTimeout(tick, 1000);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
