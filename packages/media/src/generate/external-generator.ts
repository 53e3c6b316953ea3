import { MediaError } from '../errors.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { normaliseExternalGlb } from './external-model.js';
import {
  checkAborted,
  resolveHints,
  type GenerateHints,
  type GenerateResult,
  type Generator,
  type GeneratorView,
  type ProgressFn,
} from './generator.js';

// Adapter for a hosted image-to-3D service speaking the small job protocol in
// docs/generation.md: submit photos, poll the job, download the GLB it points at.

export interface ExternalResponse {
  status: number;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export type ExternalFetch = (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => Promise<ExternalResponse>;

export interface ExternalGeneratorOptions {
  baseUrl: string;
  apiKey: string;
  /** Injected so the server's guarded fetcher (timeouts, address rules) applies. */
  fetch: ExternalFetch;
  /** Default 3 s. */
  pollIntervalMs?: number;
  /** Whole job, submit to download; default 15 min. */
  timeoutMs?: number;
}

/**
 * The service could not be reached or answered with a server error: nothing about the
 * request is wrong, so unlike a MediaError this is worth retrying later.
 */
export class ExternalServiceUnavailable extends Error {
  override readonly name = 'ExternalServiceUnavailable';
}

const DEFAULT_POLL_INTERVAL_MS = 3000;
const DEFAULT_TIMEOUT_MS = 15 * 60 * 1000;

type JobStatus = { status: 'queued' | 'running' | 'succeeded' | 'failed'; progress?: number; result_url?: string; error?: string };

function parseStatus(body: unknown): JobStatus {
  const b = body as Partial<JobStatus> | null;
  if (!b || typeof b !== 'object' || !['queued', 'running', 'succeeded', 'failed'].includes(b.status as string)) {
    throw new MediaError('external_protocol', `Generation service sent an unknown job status: ${JSON.stringify(body)?.slice(0, 200)}`);
  }
  return b as JobStatus;
}

/** A body that is not JSON breaks the protocol; that is not worth a retry. */
async function readJson(res: ExternalResponse): Promise<unknown> {
  try {
    return await res.json();
  } catch (err) {
    throw new MediaError('external_protocol', `Generation service sent a body that is not JSON: ${(err as Error).message}`);
  }
}

async function errorText(res: ExternalResponse): Promise<string> {
  try {
    const body = (await res.json()) as { error?: unknown } | null;
    return typeof body?.error === 'string' ? `: ${body.error.slice(0, 300)}` : '';
  } catch {
    return '';
  }
}

export function createExternalGenerator(opts: ExternalGeneratorOptions): Generator {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const baseOrigin = new URL(base).origin;
  const pollInterval = opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const timeout = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const auth = { authorization: `Bearer ${opts.apiKey}` };

  return {
    name: 'external',
    async generate(views: GeneratorView[], hints: GenerateHints, onProgress?: ProgressFn, signal?: AbortSignal): Promise<GenerateResult> {
      const resolved = resolveHints(hints);
      if (views.length === 0) throw new MediaError('no_usable_views', 'No views to send to the generation service');
      const deadline = Date.now() + timeout;
      const timedOut = () => new MediaError('external_timeout', `Generation service did not finish within ${Math.round(timeout / 1000)} s`);

      // Every wait races the job's deadline and the caller's signal: the fetch we are
      // given may have no timeout of its own. Work starts only after both are checked.
      const call = async <T>(start: () => Promise<T>): Promise<T> => {
        checkAborted(signal);
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw timedOut();
        const stop = new AbortController();
        const limits = [sleep(remaining, undefined, { signal: stop.signal }).then(() => Promise.reject(timedOut()))];
        if (signal) limits.push(abortion(signal, stop.signal));
        try {
          return await Promise.race([start(), ...limits]);
        } finally {
          stop.abort();
        }
      };
      const request = async (url: string, init: Parameters<ExternalFetch>[1]): Promise<ExternalResponse> => {
        try {
          return await call(() => opts.fetch(url, init));
        } catch (err) {
          if (err instanceof MediaError || signal?.aborted) throw err;
          throw new ExternalServiceUnavailable(`Generation service unreachable: ${(err as Error).message}`, { cause: err });
        }
      };
      const progress = async (percent: number, step: string) => {
        checkAborted(signal);
        await onProgress?.(percent, step);
      };

      await progress(0, 'submitting');
      const azimuths = resolved.azimuthsDeg ?? (views.every((v) => v.azimuthDeg !== undefined) ? views.map((v) => v.azimuthDeg!) : undefined);
      const body = JSON.stringify({
        images: views.map((v) => v.image.toString('base64')),
        hints: {
          azimuthsDeg: azimuths,
          elevationDeg: resolved.elevationDeg,
          heightMetres: resolved.heightMetres ?? undefined,
          triangleBudget: resolved.triangleBudget,
          textureSize: resolved.textureSize,
        },
      });
      const submitted = await request(`${base}/v1/jobs`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' },
        body,
      });
      if (submitted.status >= 500) throw new ExternalServiceUnavailable(`Generation service answered ${submitted.status} to the job submission`);
      if (submitted.status >= 400) {
        throw new MediaError('external_rejected', `Generation service refused the job (${submitted.status})${await errorText(submitted)}`);
      }
      const { id } = ((await call(() => readJson(submitted))) ?? {}) as { id?: unknown };
      if (typeof id !== 'string' || id === '') throw new MediaError('external_protocol', 'Generation service returned no job id');

      let resultUrl: string | null = null;
      await progress(5, 'queued');
      while (resultUrl === null) {
        await call(() => sleep(pollInterval, undefined, { signal }));
        let res: ExternalResponse;
        try {
          res = await request(`${base}/v1/jobs/${encodeURIComponent(id)}`, { method: 'GET', headers: { ...auth, accept: 'application/json' } });
        } catch (err) {
          // A blip while polling is not the job's fault: keep asking until the deadline.
          if (err instanceof ExternalServiceUnavailable) continue;
          throw err;
        }
        if (res.status >= 500 || res.status === 429) continue;
        if (res.status === 404) throw new MediaError('external_failed', `Generation service lost job ${id}`);
        if (res.status >= 400) throw new MediaError('external_rejected', `Generation service refused to report job ${id} (${res.status})${await errorText(res)}`);
        const job = parseStatus(await call(() => readJson(res)));
        if (job.status === 'failed') {
          throw new MediaError('external_failed', `Generation service failed the job${job.error ? `: ${String(job.error).slice(0, 300)}` : ''}`);
        }
        if (job.status === 'succeeded') {
          if (typeof job.result_url !== 'string' || !job.result_url) throw new MediaError('external_protocol', 'Finished job has no result_url');
          resultUrl = new URL(job.result_url, `${base}/`).href;
        } else {
          const remote = typeof job.progress === 'number' && Number.isFinite(job.progress) ? Math.min(100, Math.max(0, job.progress)) : 0;
          await progress(5 + Math.round(remote * 0.8), job.status === 'queued' ? 'queued' : 'generating');
        }
      }

      await progress(85, 'downloading');
      // Result links often point at object storage: the API key goes only to the service itself.
      const sameOrigin = new URL(resultUrl).origin === baseOrigin;
      const download = await request(resultUrl, { method: 'GET', headers: sameOrigin ? { ...auth } : {} });
      if (download.status >= 500) throw new ExternalServiceUnavailable(`Model download answered ${download.status}`);
      if (download.status >= 400) throw new MediaError('external_invalid_model', `Model download refused (${download.status})`);
      const glb = Buffer.from(await call(() => download.arrayBuffer()));

      await progress(95, 'validating');
      const model = await normaliseExternalGlb(glb, resolved.heightMetres);
      await progress(100, 'done');
      return { ...model, method: 'external' };
    },
  };
}

/** Rejects with the signal's reason once it aborts; settles quietly when `until` fires first. */
function abortion(signal: AbortSignal, until: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    until.addEventListener('abort', () => signal.removeEventListener('abort', onAbort), { once: true });
  });
}
