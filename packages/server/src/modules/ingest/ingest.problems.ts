import { isMediaError, isMediaRefusal } from '@plinth/media';
import { FetchError } from '../../platform/fetch/types.js';
import type { JobFailure } from '../../platform/jobs/define.js';
import type { ProblemInfo } from '../products/index.js';
import { InputRejected } from './input-rejected.js';

/** The public reason a failure of a media job gives its product. */
export function problemOf(err: unknown): ProblemInfo {
  if (err instanceof InputRejected) return { code: err.reason, message: err.message };
  // A MediaError's reason is already the public failure code: the engine's list of reasons is that set of codes.
  if (isMediaError(err)) return { code: err.reason, message: err.message };
  if (err instanceof FetchError) return { code: `fetch_${err.code}`, message: err.message };
  return { code: 'internal_error', message: 'Processing failed unexpectedly.' };
}

/** The reason a job that will not run again gives its product. */
export function failureProblem(failure: JobFailure): ProblemInfo {
  if (failure.kind === 'worker_lost') return { code: 'processing_limit', message: 'Processing stopped before it finished (its worker was stopped or ran out of resources).' };
  return problemOf(failure.error);
}

/** Bad input, or a fetch refused or answered in a way no retry changes. */
export const permanentIngestFailure = (err: unknown) =>
  err instanceof InputRejected || isMediaRefusal(err) || (err instanceof FetchError && err.code !== 'timeout' && err.code !== 'network');
