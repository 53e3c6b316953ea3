/**
 * Maps with at most `limit` calls in flight, keeping order. Decoding every photo of a
 * product at once would hold all their pixels in memory together; two at a time keeps
 * both cores busy (sharp runs on the libuv pool) without that peak.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** Photos decoded at the same time by the generators. */
export const DECODE_CONCURRENCY = 2;
