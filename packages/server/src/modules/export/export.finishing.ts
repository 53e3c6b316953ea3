import { evaluateCompliance, mapLimit } from '@plinth/media';
import type { Deps } from '../../deps.js';
import { cutoutOf } from '../products/index.js';
import { updateImage } from '../products/index.js';
import { measurementsKey, type PlannedEntry } from './export.plan.js';

const IN_FLIGHT = 2;

/** Finishes one image into the cache. The cache key holds the image's content hash and the settings. */
async function finishOne(deps: Deps, entry: PlannedEntry): Promise<void> {
  const [original, mask] = await Promise.all([
    deps.storage.getBuffer(entry.image.storageKey!),
    entry.image.maskKey ? deps.storage.getBuffer(entry.image.maskKey) : Promise.resolve(null),
  ]);
  const finished = await deps.media.run('finish.image', { original, mask, settings: entry.settings });
  await deps.storage.put(entry.cacheKey, finished.data, { contentType: finished.contentType });
  // Written after the image: its presence says the entry is finished.
  await deps.storage.put(measurementsKey(entry), Buffer.from(JSON.stringify(finished.measurements)), { contentType: 'application/json' });
  if (entry.ownSettings) {
    // Finished as the image itself asks (no export preset over it): this is the image's compliance.
    const compliance = evaluateCompliance(finished.measurements, entry.settings.preset, cutoutOf(entry.image)?.status ?? null);
    await updateImage(deps.database.db, entry.image.id, { compliance: JSON.stringify(compliance), channel_ready: compliance.passed ? 1 : 0 });
  }
}

/** Two in flight keeps both cores busy (sharp's threads plus our own work) without piling up memory. */
export async function finishAll(deps: Deps, entries: PlannedEntry[], onDone?: (done: number) => Promise<void> | void): Promise<void> {
  let done = 0;
  await mapLimit(entries, IN_FLIGHT, async (entry) => {
    await finishOne(deps, entry);
    await onDone?.(++done);
  });
}
