import type { EnqueueOptions } from './types.js';

/** Construction options shared by both adapters; the rest comes from config.jobs. */
export interface JobQueueOptions {
  /** how long close() waits for running jobs before releasing them (default 10 s) */
  closeTimeoutMs?: number;
  /** how often this worker writes its heartbeat (default 5 s; tests shorten it) */
  heartbeatMs?: number;
  /** how old a heartbeat makes a worker dead (default 15 s) */
  staleMs?: number;
}

export const DEFAULT_RETRY_LIMIT = 5;
export const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

/** Rejects bad options before anything is written, with the same rules on both adapters. */
export function checkEnqueueOptions(opts: EnqueueOptions): { retryLimit: number; delaySeconds: number } {
  const retryLimit = opts.retryLimit ?? DEFAULT_RETRY_LIMIT;
  const delaySeconds = opts.delaySeconds ?? 0;
  if (!Number.isInteger(retryLimit) || retryLimit < 0) throw new TypeError('retryLimit must be an integer >= 0');
  if (!Number.isFinite(delaySeconds) || delaySeconds < 0) throw new TypeError('delaySeconds must be a number >= 0');
  return { retryLimit, delaySeconds };
}
