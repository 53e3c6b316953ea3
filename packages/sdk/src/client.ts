import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError, PlinthError, errorFromResponse } from './core/errors.js';
import { APIPromise } from './core/api-promise.js';
import { Page, PagePromise, type ListBody } from './core/pagination.js';
import { buildURL, methodOf, newIdempotencyKey, type CallArgs, type ItemOf, type ListOperation, type Success } from './core/request.js';
import { isRetryable, retryDelay, sleep } from './core/retries.js';
import type { OperationKey } from './generated/openapi.js';
import { ApiKeys } from './resources/api-keys.js';
import { Beacon } from './resources/beacon.js';
import { Conversions } from './resources/conversions.js';
import { Experiments } from './resources/experiments.js';
import { Health } from './resources/health.js';
import { Products } from './resources/products.js';
import { Projects } from './resources/projects.js';
import { Uploads } from './resources/uploads.js';
import { Usage } from './resources/usage.js';
import { Webhooks } from './resources/webhooks.js';

/** The fetch the client calls; `globalThis.fetch` by default. Any WHATWG-compatible fetch fits. */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** A secret key (`sk_…`) on servers; a publishable key (`pk_…`) only for reading a published product and beacons. */
  apiKey: string;
  /** Where your Plinth runs, without `/v1`. Default `http://localhost:3000` (what `plinth serve` listens on). */
  baseURL?: string;
  /** Retries after the first attempt for rate limits, 408, 5xx and connection failures. Default 2. */
  maxRetries?: number;
  /** Milliseconds each attempt may take before it is abandoned (and retried). Default 60 000. */
  timeout?: number;
  /** Inject a fetch: a proxy-aware one, a mock in tests, one with logging. */
  fetch?: Fetch;
  /** Sent with every request. */
  defaultHeaders?: Record<string, string>;
}

const DEFAULT_BASE_URL = 'http://localhost:3000';

interface Answer {
  response: Response;
  /** parsed JSON, or undefined for a streamed (or empty) body */
  body: unknown;
}

export class Plinth {
  readonly baseURL: string;
  readonly maxRetries: number;
  readonly timeout: number;
  readonly #apiKey: string;
  readonly #fetch: Fetch | undefined;
  readonly #headers: Record<string, string>;

  readonly products: Products;
  readonly uploads: Uploads;
  readonly usage: Usage;
  readonly beacon: Beacon;
  readonly conversions: Conversions;
  readonly experiments: Experiments;
  readonly webhooks: Webhooks;
  readonly apiKeys: ApiKeys;
  readonly projects: Projects;
  readonly health: Health;

  constructor(options: ClientOptions) {
    if (!options?.apiKey) throw new TypeError('new Plinth({ apiKey }): an API key (sk_… or pk_…) is required.');
    this.#apiKey = options.apiKey;
    this.baseURL = (options.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
    this.maxRetries = options.maxRetries ?? 2;
    this.timeout = options.timeout ?? 60_000;
    this.#fetch = options.fetch;
    this.#headers = { ...options.defaultHeaders };

    this.products = new Products(this);
    this.uploads = new Uploads(this);
    this.usage = new Usage(this);
    this.beacon = new Beacon(this);
    this.conversions = new Conversions(this);
    this.experiments = new Experiments(this);
    this.webhooks = new Webhooks(this);
    this.apiKeys = new ApiKeys(this);
    this.projects = new Projects(this);
    this.health = new Health(this);
  }

  /** Calls one operation and answers its JSON; non-2xx answers throw the matching PlinthError. */
  request<K extends OperationKey>(op: K, args: CallArgs<K>): APIPromise<Success<K>> {
    return new APIPromise(this.#send(op, args, false).then(({ body, response }) => ({ data: body as Success<K>, response })));
  }

  /**
   * Calls one operation and answers the Response with its body unread (the export's ZIP). The
   * timeout covers the wait for the answer's headers, not the download, which may be long.
   */
  async requestStream<K extends OperationKey>(op: K, args: CallArgs<K>): Promise<Response> {
    return (await this.#send(op, args, true)).response;
  }

  /** A list operation as a page that can also be iterated to the end. */
  list<K extends ListOperation>(op: K, args: CallArgs<K>): PagePromise<ItemOf<K>> {
    const load = async (offset?: number): Promise<Page<ItemOf<K>>> => {
      const query = offset === undefined ? args.query : { ...(args.query as object), offset };
      const body = (await this.request(op, { ...args, query } as CallArgs<K>)) as ListBody<ItemOf<K>>;
      return new Page(body, load);
    };
    return new PagePromise(() => load());
  }

  async #send<K extends OperationKey>(op: K, args: CallArgs<K>, stream: boolean): Promise<Answer> {
    const method = methodOf(op);
    const url = buildURL(this.baseURL, op, args.path as Record<string, string> | undefined, args.query as object | undefined);
    // Headers, not a plain record: a caller's `content-type` must replace ours, not be joined to it.
    const headers = new Headers({ Accept: args.accept ? `${args.accept}, application/json` : 'application/json' });
    headers.set('Authorization', `Bearer ${this.#apiKey}`);
    let body: BodyInit | undefined;
    if (args.upload) {
      body = args.upload.data as BodyInit;
      headers.set('Content-Type', args.upload.contentType);
    } else if (args.body !== undefined) {
      body = JSON.stringify(args.body);
      headers.set('Content-Type', 'application/json');
    }
    // One key for every attempt of this call: a retry after a lost answer replays it instead of
    // acting twice. Not for publishable keys: the API's CORS preflight does not allow the header,
    // and a browser would refuse the whole request.
    if (method === 'POST' && !this.#apiKey.startsWith('pk_')) headers.set('Idempotency-Key', args.options?.idempotencyKey ?? newIdempotencyKey());
    for (const extra of [this.#headers, args.options?.headers]) for (const [name, value] of Object.entries(extra ?? {})) headers.set(name, value);

    const maxRetries = args.options?.maxRetries ?? this.maxRetries;
    const timeout = args.options?.timeout ?? this.timeout;
    const signal = args.options?.signal;
    for (let retry = 0; ; retry++) {
      let failure: PlinthError;
      try {
        const answer = await this.#attempt(url, { method, headers, body }, timeout, signal, stream);
        if (answer.response.ok) return answer;
        failure = errorFromResponse(answer.response.status, answer.body, answer.response.headers);
      } catch (err) {
        if (!(err instanceof APIConnectionError)) throw err;
        failure = err;
      }
      const delay = retry < maxRetries && isRetryable(failure) ? retryDelay(retry, failure) : null;
      if (delay === null) throw failure;
      await sleep(delay, signal).catch((reason) => {
        throw new APIUserAbortError(undefined, { cause: reason });
      });
    }
  }

  /** One attempt: fetch, then read the body while the timeout still runs (except a streamed 2xx). */
  async #attempt(url: string, init: RequestInit, timeout: number, signal: AbortSignal | undefined, stream: boolean): Promise<Answer> {
    const fetch = this.#fetch ?? globalThis.fetch;
    if (typeof fetch !== 'function') throw new TypeError('No fetch available: pass one as new Plinth({ fetch }).');
    if (signal?.aborted) throw new APIUserAbortError(undefined, { cause: signal.reason });
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    let keepLinked = false;
    try {
      const response = await fetch(url, { ...init, signal: controller.signal });
      if (stream && response.ok) {
        // The caller reads the body later: their signal must still be able to stop the download.
        keepLinked = true;
        return { response, body: undefined };
      }
      return { response, body: parseBody(await response.text(), response) };
    } catch (err) {
      if (err instanceof PlinthError) throw err;
      if (signal?.aborted) throw new APIUserAbortError(undefined, { cause: err });
      if (timedOut) throw new APIConnectionTimeoutError(`No answer from the Plinth API within ${timeout} ms.`, { cause: err });
      throw new APIConnectionError(`Could not reach the Plinth API: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    } finally {
      clearTimeout(timer);
      if (!keepLinked) signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** JSON when the answer says JSON (or looks like it); the raw text otherwise, so error messages can quote it. */
function parseBody(text: string, response: Response): unknown {
  if (!text) return undefined;
  const json = /\bjson\b/i.test(response.headers.get('content-type') ?? '') || /^\s*[{[]/.test(text);
  if (!json) return text;
  try {
    return JSON.parse(text);
  } catch (cause) {
    if (!response.ok) return text;
    throw new PlinthError('The API answered with a body that is not valid JSON.', {
      status: response.status,
      code: 'invalid_response',
      requestId: response.headers.get('x-request-id'),
      headers: response.headers,
      cause,
    });
  }
}
