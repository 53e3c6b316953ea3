import { isIP } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import type { Config } from '../../config.js';
import { bareHost, parseTarget } from './address-policy.js';
import { createResolver, type LookupFn } from './resolver.js';
import { FetchError, type FetchOptions, type FetchResult, type GuardedFetcher } from './types.js';

export { classifyAddress } from './address-policy.js';
export type { LookupFn, ResolvedAddress } from './resolver.js';

export interface FetcherDeps {
  /** replaces system DNS; tests use it to point names at loopback without touching real DNS */
  lookup?: LookupFn;
}

const followedStatuses = new Set([301, 302, 303, 307, 308]);
const originBoundHeaders = ['authorization', 'cookie', 'proxy-authorization'];
const bodyHeaders = ['content-type', 'content-length', 'content-encoding'];

type Method = NonNullable<FetchOptions['method']>;

export function createFetcher(config: Readonly<Config>, deps: FetcherDeps = {}): GuardedFetcher {
  const resolver = createResolver(config.fetchAllowHosts, deps.lookup);
  // Every socket this agent opens gets its address from the guarded lookup; IP-literal hosts skip
  // lookup inside net.connect, which is why fetch() vets them itself before dispatching.
  const agent = new Agent({ connect: { lookup: resolver.connectLookup } });
  let closing: Promise<void> | null = null;

  async function fetch(rawUrl: string, opts: FetchOptions = {}): Promise<FetchResult> {
    const maxBytes = opts.maxBytes ?? config.fetch.maxBytes;
    const timeoutMs = opts.timeoutMs ?? config.fetch.timeoutMs;
    const follow = opts.followRedirects ?? true;
    const failOnHttpError = opts.failOnHttpError ?? true;

    let url = parseTarget(rawUrl);
    let method: Method = opts.method ?? 'GET';
    let body = opts.body;
    const headers: Record<string, string> = { 'user-agent': 'Plinth', ...lowerKeys(opts.headers) };

    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const signal = opts.signal ? AbortSignal.any([deadline.signal, opts.signal]) : deadline.signal;
    try {
      for (let redirects = 0; ; redirects++) {
        // Names are vetted inside the connect lookup; literals never reach it, so vet them here.
        if (isIP(bareHost(url.hostname))) await resolver.resolve(url.hostname);
        const res = await request(url, { dispatcher: agent, method, headers, body, signal });
        const resHeaders = flattenHeaders(res.headers);
        const location = resHeaders.location;

        if (follow && followedStatuses.has(res.statusCode) && location) {
          discard(res.body);
          if (redirects >= config.fetch.maxRedirects) {
            throw new FetchError('too_many_redirects', `more than ${config.fetch.maxRedirects} redirects`, url.href);
          }
          const next = redirectTarget(location, url);
          if (res.statusCode === 303 ? method !== 'HEAD' : res.statusCode <= 302 && method === 'POST') {
            method = 'GET';
            body = undefined;
            for (const h of bodyHeaders) delete headers[h];
          }
          if (next.origin !== url.origin) for (const h of originBoundHeaders) delete headers[h];
          url = next;
          continue;
        }

        const status = res.statusCode;
        if (failOnHttpError && (status >= 400 || (status >= 300 && follow))) {
          discard(res.body);
          throw new FetchError('http_status', `HTTP ${status}`, url.href, status);
        }
        const declared = Number(resHeaders['content-length']);
        if (method !== 'HEAD' && declared > maxBytes) {
          discard(res.body);
          throw new FetchError('too_large', `Content-Length ${declared} exceeds ${maxBytes} bytes`, url.href);
        }
        const bytes = await readCapped(res.body, maxBytes, url);
        return { url: url.href, status, headers: resHeaders, body: bytes };
      }
    } catch (err) {
      if (deadline.signal.aborted) throw new FetchError('timeout', `no complete answer within ${timeoutMs} ms`, url.href);
      if (opts.signal?.aborted) throw new FetchError('network', 'aborted by caller', url.href);
      rethrow(err, url);
    } finally {
      clearTimeout(timer);
    }
  }

  async function check(rawUrl: string): Promise<void> {
    const url = parseTarget(rawUrl);
    const timeoutMs = config.fetch.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FetchError('timeout', `DNS took longer than ${timeoutMs} ms`, url.href)), timeoutMs);
    });
    try {
      await Promise.race([resolver.resolve(url.hostname), expired]);
    } catch (err) {
      rethrow(err, url);
    } finally {
      clearTimeout(timer);
    }
  }

  function close(): Promise<void> {
    closing ??= agent.close();
    return closing;
  }

  return { fetch, check, close };
}

/** Re-labels errors with the URL being fetched; the resolver only knows the hostname. */
function rethrow(err: unknown, url: URL): never {
  const found = findFetchError(err);
  if (found) throw new FetchError(found.code, found.message, url.href, found.status);
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  throw new FetchError('network', typeof code === 'string' ? `${message} (${code})` : message, url.href);
}

function findFetchError(err: unknown): FetchError | null {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof FetchError) return e;
  }
  return null;
}

function redirectTarget(location: string, base: URL): URL {
  let resolved: URL;
  try {
    resolved = new URL(location, base);
  } catch {
    throw new FetchError('bad_url', 'redirect to an invalid URL', base.href);
  }
  return parseTarget(resolved.href);
}

async function readCapped(stream: Dispatcher.ResponseData['body'], maxBytes: number, url: URL): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      discard(stream);
      throw new FetchError('too_large', `body exceeds ${maxBytes} bytes`, url.href);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** undici turns destroying an unread body into an 'error' event; nobody is left to hear it. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

function flattenHeaders(raw: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}
