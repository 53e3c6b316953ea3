/** What `withResponse()` gives besides the data: the request id to quote to support, and the raw answer. */
export interface WithResponse<T> {
  data: T;
  /** `X-Request-Id` of the final attempt: the id the server logged this call under. */
  requestId: string | null;
  headers: Headers;
  status: number;
}

interface Raw<T> {
  data: T;
  response: Response;
}

/**
 * A Promise of the data, as every method returns, that also keeps the HTTP answer:
 * `const { data, requestId } = await plinth.products.retrieve(id).withResponse()`.
 */
export class APIPromise<T> extends Promise<T> {
  // then() and friends answer plain promises, not APIPromises built from an executor this class ignores.
  static override get [Symbol.species]() {
    return Promise;
  }

  readonly #raw: Promise<Raw<T>>;
  #data: Promise<T> | undefined;

  constructor(raw: Promise<Raw<T>>) {
    super((resolve) => resolve(undefined as T));
    this.#raw = raw;
  }

  #parsed(): Promise<T> {
    return (this.#data ??= this.#raw.then((r) => r.data));
  }

  override then<A = T, B = never>(onFulfilled?: ((value: T) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.#parsed().then(onFulfilled, onRejected);
  }

  override catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#parsed().catch(onRejected);
  }

  override finally(onFinally?: (() => void) | null): Promise<T> {
    return this.#parsed().finally(onFinally);
  }

  /** The data with the request id, headers and status of the answer. */
  async withResponse(): Promise<WithResponse<T>> {
    const { data, response } = await this.#raw;
    return { data, requestId: response.headers.get('x-request-id'), headers: response.headers, status: response.status };
  }

  /** The same call with its data transformed; the answer stays reachable through withResponse(). */
  map<U>(fn: (data: T) => U | Promise<U>): APIPromise<U> {
    return new APIPromise(this.#raw.then(async (r) => ({ data: await fn(r.data), response: r.response })));
  }
}
