/** The list envelope every list endpoint answers: `{object: 'list', data, total, limit, offset}`. */
export interface ListBody<T> {
  object: 'list';
  data: T[];
  total: number;
  limit: number;
  offset: number;
}

/** Fetches the page that starts at `offset`, with the first call's filters and limit. */
export type PageFetcher<T> = (offset: number) => Promise<Page<T>>;

/**
 * One page of a list, and an async iterator over every item from here to the end: iterating
 * fetches the following pages as it goes, so `for await` walks the whole list without the caller
 * doing offset arithmetic.
 */
export class Page<T> implements AsyncIterable<T> {
  readonly object = 'list' as const;
  readonly data: T[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
  // A private field, so the page still reads (and serializes) as the API's plain list body.
  readonly #fetch: PageFetcher<T>;

  constructor(body: ListBody<T>, fetch: PageFetcher<T>) {
    this.data = body.data;
    this.total = body.total;
    this.limit = body.limit;
    this.offset = body.offset;
    this.#fetch = fetch;
  }

  /** An empty page ends the walk even if `total` grew meanwhile, so iteration cannot spin. */
  hasNextPage(): boolean {
    return this.data.length > 0 && this.offset + this.data.length < this.total;
  }

  /** The following page. The offset advances by what this page held, whatever limit the API applied. */
  getNextPage(): Promise<Page<T>> {
    if (!this.hasNextPage()) return Promise.reject(new Error('This is the last page; check hasNextPage() first.'));
    return this.#fetch(this.offset + this.data.length);
  }

  /** This page and every following one. */
  async *iterPages(): AsyncGenerator<Page<T>, void, undefined> {
    let page: Page<T> = this;
    yield page;
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for await (const page of this.iterPages()) yield* page.data;
  }
}

/**
 * What a list method returns: await it for the first page, or `for await` it directly for every
 * item. The request starts on first use, so a list that is never awaited never fails unobserved.
 */
export class PagePromise<T> implements Promise<Page<T>>, AsyncIterable<T> {
  readonly [Symbol.toStringTag] = 'PagePromise';
  #started: Promise<Page<T>> | null = null;
  readonly #load: () => Promise<Page<T>>;

  constructor(load: () => Promise<Page<T>>) {
    this.#load = load;
  }

  #page(): Promise<Page<T>> {
    this.#started ??= this.#load();
    return this.#started;
  }

  then<A = Page<T>, B = never>(
    onfulfilled?: ((page: Page<T>) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#page().then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page<T> | B> {
    return this.#page().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<Page<T>> {
    return this.#page().finally(onfinally);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    yield* await this.#page();
  }
}
