/**
 * The (experiment, organization, viewer, arm) exposures already committed, as their keys: a viewer's page sends
 * the same exposure with every batch of events, and a row the database already holds needs no upsert (its
 * `on conflict do nothing` would change nothing). Only committed keys go in, so forgetting is always safe; a
 * deleted experiment's keys may linger, and its rows are never read again. Bounded: cleared when full.
 */
export class ExposureMemory {
  private readonly keys = new Set<string>();

  constructor(private readonly capacity = 100_000) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  remember(keys: Iterable<string>): void {
    for (const key of keys) {
      if (this.keys.size >= this.capacity) this.keys.clear();
      this.keys.add(key);
    }
  }
}
