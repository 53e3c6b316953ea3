export type FetchErrorCode =
  | 'bad_url' // not http(s), unparsable, credentials in URL
  | 'blocked_address' // resolves to a private, loopback, link-local, reserved… address
  | 'dns_failed'
  | 'too_many_redirects'
  | 'too_large'
  | 'timeout'
  | 'network'
  | 'http_status'; // non-2xx final answer (only when failOnHttpError)

export class FetchError extends Error {
  constructor(
    readonly code: FetchErrorCode,
    message: string,
    readonly url: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

export interface FetchOptions {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** default: config.fetch.maxBytes */
  maxBytes?: number;
  /** whole-request deadline; default: config.fetch.timeoutMs */
  timeoutMs?: number;
  /** default true, at most 3 hops, each re-checked */
  followRedirects?: boolean;
  /** throw FetchError('http_status') on a non-2xx final answer (default true) */
  failOnHttpError?: boolean;
  signal?: AbortSignal;
}

export interface FetchResult {
  /** final URL after redirects */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The only way the service fetches a URL a user gave it. */
export interface GuardedFetcher {
  fetch(url: string, opts?: FetchOptions): Promise<FetchResult>;
  /** throws FetchError when url is not fetchable (scheme, address after DNS); used to validate at input time */
  check(url: string): Promise<void>;
  close(): Promise<void>;
}
