import { APIConnectionError, PlinthError, RateLimitError, parseRetryAfterSeconds } from './errors.js';

const INITIAL_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;
/**
 * A Retry-After beyond this is not waited out inside one call: the caller gets the RateLimitError
 * (with `retryAfter`) and can schedule the work, instead of a promise that hangs for minutes.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * What is worth sending again. Every POST carries an Idempotency-Key, so even a request whose
 * answer was lost is safe to repeat. `quota_exceeded` and the other 4xx would fail the same way.
 */
export function isRetryable(err: unknown): boolean {
  if (err instanceof APIConnectionError) return true;
  if (!(err instanceof PlinthError) || err.status === undefined) return false;
  if (err.status === 408 || err.status >= 500) return true;
  if (err instanceof RateLimitError) return true;
  // The first request with this Idempotency-Key is still running on the server; its answer will be replayed.
  if (err.status === 409 && err.details?.reason === 'idempotency_in_progress') return true;
  return false;
}

/**
 * Milliseconds to wait before retry number `retry` (0-based), or null when the API asked for a
 * longer wait than one call should block. Retry-After is honoured exactly (waiting less would
 * only be refused again); otherwise exponential backoff with jitter, so that many clients failing
 * together do not come back together.
 */
export function retryDelay(retry: number, err: unknown, random: () => number = Math.random): number | null {
  const retryAfter = err instanceof RateLimitError ? secondsToMs(err.retryAfter) : err instanceof PlinthError ? retryAfterMs(err.headers) : null;
  if (retryAfter !== null) return retryAfter <= MAX_RETRY_AFTER_MS ? retryAfter : null;
  const backoff = Math.min(INITIAL_DELAY_MS * 2 ** retry, MAX_BACKOFF_MS);
  // "Equal jitter": at least half the backoff, so retries still spread out, never a burst at ~0 ms.
  return backoff / 2 + random() * (backoff / 2);
}

function retryAfterMs(headers: Headers | undefined): number | null {
  return secondsToMs(parseRetryAfterSeconds(headers?.get('retry-after') ?? null));
}

const secondsToMs = (seconds: number | null) => (seconds === null ? null : seconds * 1000);

/** setTimeout that the caller's signal can cut short. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
