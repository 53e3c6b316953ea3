import { MediaError } from '../errors.js';
import { mapLimit } from '../util/map-limit.js';
import { resolveResourceUrl } from './model-container.js';

/** The caller's guarded fetcher (refuses private addresses, enforces timeouts and size caps). */
export type FetchBytes = (url: string) => Promise<Buffer>;

export interface ResourceLimits {
  /** Budget shared by all external resources, in bytes. */
  maxBytes: number;
  maxResources: number;
  concurrency: number;
}

/**
 * Fetches every external URI of the asset through the caller's fetcher and returns
 * the bytes keyed by the URI exactly as written in the JSON — that is the key both
 * gltf-transform and the validator's externalResourceFunction look resources up by.
 */
export async function fetchExternalResources(
  uris: string[],
  baseUrl: string | null,
  fetchBytes: FetchBytes,
  limits: ResourceLimits,
): Promise<Map<string, Uint8Array>> {
  if (uris.length > limits.maxResources) {
    throw new MediaError(
      'model_too_large',
      `Model references ${uris.length} external resources; at most ${limits.maxResources} are allowed`,
      { count: uris.length, limit: limits.maxResources },
    );
  }
  // Resolve everything before fetching anything, so a single refused URI means
  // no request at all leaves the server on behalf of this model.
  const targets = uris.map((uri) => ({ uri, url: resolveResourceUrl(uri, baseUrl) }));

  const out = new Map<string, Uint8Array>();
  let total = 0;
  let failure: unknown = null;

  // After the first failure the remaining URIs are skipped: one bad resource fails the model anyway.
  await mapLimit(targets, limits.concurrency, async ({ uri, url }) => {
    if (failure !== null) return;
    let data: Buffer;
    try {
      data = await fetchBytes(url);
    } catch (err) {
      failure ??= fetchFailed(uri, url, err);
      return;
    }
    total += data.byteLength;
    if (total > limits.maxBytes) {
      failure ??= new MediaError(
        'model_too_large',
        `External resources exceed the ${limits.maxBytes} byte limit`,
        { limit: limits.maxBytes, uri },
      );
      return;
    }
    out.set(uri, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  });
  if (failure !== null) throw failure;
  return out;
}

function fetchFailed(uri: string, url: string, err: unknown): MediaError {
  const message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof MediaError ? err.reason : undefined;
  return new MediaError(
    'external_fetch_failed',
    `Could not fetch external resource ${JSON.stringify(uri)}: ${message}`,
    { uri, url, ...(cause ? { cause } : {}) },
  );
}
