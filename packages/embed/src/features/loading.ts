import type { Experiment } from './experiment.js';

/** model-viewer settings saved with the product's model, defaults filled in by the API. */
export interface ViewerSettings {
  exposure: number;
  shadow_intensity: number;
  camera_orbit: string | null;
  environment: string;
  auto_rotate: boolean;
}

/** `GET /embed/products/{id}`: what the element needs to show a published product. */
export interface EmbedProduct {
  id: string;
  title: string | null;
  model_url: string;
  usdz_url: string | null;
  /** The deliveries (absent from a server older than them): `mobile` for phones and slow or data-saving connections. */
  sources?: { web: string; mobile: string; usdz: string | null };
  poster_url: string | null;
  dimensions: { width: number; height: number; depth: number } | null;
  viewer: ViewerSettings;
  /** the running experiment covering this product; absent from servers before it existed */
  experiment?: Experiment | null;
}

export type FailureReason = 'origin' | 'not_found' | 'key' | 'unauthorized' | 'rate_limited' | 'network' | 'server' | 'config';

export type LoadResult =
  | { ok: true; product: EmbedProduct }
  | { ok: false; reason: FailureReason; status: number | null; message: string };

const RETRY_DELAY_MS = 1_200;
const MAX_RETRY_AFTER_MS = 10_000;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * A browser hides why a cross-origin request failed: a refused origin (no CORS headers on the
 * preflight or on the 403) looks exactly like a dropped connection. A no-cors request needs no
 * CORS headers, so if it gets through, the API is reachable and the origin is what was refused.
 */
async function apiReachable(apiBase: string, signal: AbortSignal): Promise<boolean> {
  try {
    await fetch(`${apiBase}/embed.js`, { method: 'HEAD', mode: 'no-cors', cache: 'no-store', credentials: 'omit', signal });
    return true;
  } catch {
    return false;
  }
}

async function errorBody(res: Response): Promise<{ message?: string; details?: { reason?: string } } | undefined> {
  try {
    return ((await res.json()) as { error?: { message?: string; details?: { reason?: string } } }).error;
  } catch {
    return undefined;
  }
}
const errorReason = async (res: Response) => (await errorBody(res))?.details?.reason ?? null;
const errorMessage = async (res: Response) => (await errorBody(res))?.message ?? `HTTP ${res.status}`;

async function attempt(apiBase: string, productId: string, key: string, signal: AbortSignal): Promise<LoadResult & { retryAfterMs?: number }> {
  let res: Response;
  try {
    res = await fetch(`${apiBase}/embed/products/${encodeURIComponent(productId)}`, {
      headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' },
      credentials: 'omit',
      signal,
    });
  } catch {
    if (signal.aborted) return { ok: false, reason: 'network', status: null, message: 'aborted' };
    if (await apiReachable(apiBase, signal)) {
      return {
        ok: false,
        reason: 'origin',
        status: null,
        message: `The API at ${apiBase} refused this page's origin (${location.origin}); add it to the project's allowed_domains.`,
      };
    }
    return { ok: false, reason: 'network', status: null, message: `The API at ${apiBase} could not be reached.` };
  }
  if (res.ok) {
    const product = (await res.json().catch(() => null)) as EmbedProduct | null;
    if (!product || typeof product.id !== 'string') return { ok: false, reason: 'server', status: res.status, message: 'The API sent an unreadable product.' };
    return { ok: true, product };
  }
  const status = res.status;
  if (status === 404) return { ok: false, reason: 'not_found', status, message: `Product ${productId} is not published, has no ready model, or does not exist.` };
  // A 401 is readable from any origin: the key is unknown, revoked, or a secret key that must not be in a page.
  if (status === 401) return { ok: false, reason: 'key', status, message: `The publishable-key attribute is not a valid publishable key (unknown, revoked, or a secret key): ${await errorMessage(res)}` };
  if (status === 403) {
    const why = await errorReason(res);
    if (why === 'origin') return { ok: false, reason: 'origin', status, message: `This page's origin (${location.origin}) is not in the project's allowed_domains; add it there.` };
    return { ok: false, reason: 'unauthorized', status, message: 'The key may not read this product.' };
  }
  if (status === 429) {
    const after = Number(res.headers.get('Retry-After'));
    return { ok: false, reason: 'rate_limited', status, message: 'Too many requests.', retryAfterMs: Number.isFinite(after) ? after * 1000 : RETRY_DELAY_MS };
  }
  return { ok: false, reason: status >= 500 ? 'server' : 'config', status, message: `The API answered ${status}.` };
}

/** Fetches the projection, retrying once when the failure may pass (network, 5xx, 429). */
export async function loadProduct(apiBase: string, productId: string, key: string, signal: AbortSignal): Promise<LoadResult> {
  const first = await attempt(apiBase, productId, key, signal);
  if (first.ok || signal.aborted || !['network', 'server', 'rate_limited'].includes(first.reason)) return first;
  await sleep(Math.min(first.retryAfterMs ?? RETRY_DELAY_MS, MAX_RETRY_AFTER_MS), signal);
  if (signal.aborted) return first;
  return attempt(apiBase, productId, key, signal);
}

/**
 * api-base defaults to where this script was loaded from, which is the API itself when a shop uses
 * the `<api>/embed.js` snippet. Trailing slashes are dropped so paths join cleanly.
 */
export function resolveApiBase(attribute: string | null, scriptUrl: string): string | null {
  try {
    const url = new URL(attribute?.trim() || new URL(scriptUrl).origin, location.href);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    return url.href.replace(/\/+$/, '');
  } catch {
    return null;
  }
}
