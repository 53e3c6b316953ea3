import type { PagePromise } from '../core/pagination.js';
import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/request.js';
import type {
  ImageUpdateParams,
  ModelUpdateParams,
  Product,
  ProductCommitParams,
  ProductCreateParams,
  ProductDeleted,
  ProductExportParams,
  ProductListParams,
  ProductPublishParams,
  ProductQuoteParams,
  ProductsDeleted,
  ProductUpdateParams,
  PublicProduct,
  PublishResult,
  QueuedExport,
  Quote,
  RescaleParams,
  ReviewParams,
  TagCount,
  TagListParams,
} from '../types.js';
import { Resource } from './resource.js';

/**
 * What an export answers: the ZIP as a stream when everything fits one request, or — when more
 * images need finishing than that — the queued export, whose link is mailed to `notify_email`.
 */
export type ExportResult =
  | {
      kind: 'zip';
      /** The ZIP, unread; pipe it to a file or read it with `new Response(body).arrayBuffer()`. */
      body: ReadableStream<Uint8Array>;
      /** From Content-Disposition, e.g. `plinth-export-….zip`. */
      filename: string | null;
      response: Response;
    }
  | { kind: 'queued'; export: QueuedExport };

const byId = (id: string) => ({ path: { id } });

/** What `waitFor` waits for: the product's model, or its images (ingested, or renders of its model). */
export type WaitUntil = 'model_ready' | 'images_ready';

export interface WaitForOptions {
  until: WaitUntil;
  /** Give up after this long (milliseconds). Default 10 minutes: generation takes minutes. */
  timeoutMs?: number;
  /** Between polls (milliseconds). Default 2000. */
  intervalMs?: number;
  /** Called with each new state of the product (`progress`, `step`) while it is being worked on. */
  onProgress?: (product: Product) => void;
  signal?: AbortSignal;
}

/** The work failed (`product.error` says why), or did not finish within `timeoutMs`. */
export class WaitForError extends Error {
  constructor(
    message: string,
    readonly reason: 'failed' | 'timeout',
    readonly product: Product,
  ) {
    super(message);
    this.name = 'WaitForError';
  }
}

const DONE: Record<WaitUntil, (p: Product) => 'done' | 'failed' | null> = {
  model_ready: (p) => (p.model_status === 'ready' ? 'done' : p.model_status === 'failed' || p.model_status === 'none' ? 'failed' : null),
  images_ready: (p) => (p.images_status === 'ready' ? 'done' : p.images_status === 'failed' || p.images_status === 'none' ? 'failed' : null),
};

export class Products extends Resource {
  /** Newest first. `for await (const p of client.products.list({ tag: ['a'] }))` walks every page. */
  list(params?: ProductListParams, options?: RequestOptions): PagePromise<Product> {
    return this.client.list('GET /v1/products', { query: params, options });
  }

  /**
   * Polls until the product's model (or images) is ready and answers the product; throws WaitForError when
   * that work failed or `timeoutMs` passed. `onProgress` sees each change of `progress` and `step`.
   */
  async waitFor(id: string, options: WaitForOptions, requestOptions?: RequestOptions): Promise<Product> {
    const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000);
    const interval = options.intervalMs ?? 2_000;
    let seen = '';
    for (;;) {
      const product = await this.retrieve(id, { ...requestOptions, ...(options.signal && { signal: options.signal }) });
      const state = DONE[options.until](product);
      if (state === 'done') return product;
      if (state === 'failed') {
        const why = product.error ? `${product.error.code}: ${product.error.message}` : `nothing was ordered (${options.until})`;
        throw new WaitForError(`Product ${id} will not become ${options.until.replace('_', ' ')}: ${why}`, 'failed', product);
      }
      const now = `${product.progress}|${product.step}|${product.model_status}|${product.images_status}`;
      if (now !== seen) options.onProgress?.(product);
      seen = now;
      if (Date.now() + interval > deadline) throw new WaitForError(`Product ${id} was not ${options.until.replace('_', ' ')} within ${options.timeoutMs ?? 600_000} ms`, 'timeout', product);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, interval);
        options.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(options.signal!.reason)), { once: true });
      });
    }
  }

  /** The product with its images and model (secret key or session). */
  retrieve(id: string, options?: RequestOptions): APIPromise<Product> {
    return this.client.request('GET /v1/products/{id}', { ...byId(id), options }).map((body) => {
      if (!('object' in body)) throw new TypeError('The API answered the public projection: this key is publishable; use products.retrievePublic().');
      return body;
    });
  }

  /** What a publishable key sees: a published product whose model is ready (404 otherwise). */
  retrievePublic(id: string, options?: RequestOptions): APIPromise<PublicProduct> {
    return this.client.request('GET /v1/products/{id}', { ...byId(id), options }).map((p) => ({ id: p.id, title: p.title, model_url: p.model_url, thumbnail_url: p.thumbnail_url, model_status: p.model_status }));
  }

  /**
   * The raw create: a fresh source answers a Quote (nothing is written), a `model_url` or `model_path` import or a
   * `resume_token` answers the Product. Narrow on `result.object`; or use quote() and commit().
   */
  create(params: ProductCreateParams, options?: RequestOptions): APIPromise<Quote | Product> {
    return this.client.request('POST /v1/products', { body: params, options });
  }

  /** Prices a new product from images, a video, a page or uploads; commit the quote to create it. */
  quote(params: ProductQuoteParams, options?: RequestOptions): APIPromise<Quote> {
    return this.create(params, options).map((result) => {
      if (result.object !== 'quote') throw new TypeError(`Expected a quote, the API answered a ${result.object}.`);
      return result;
    });
  }

  /** Creates the quoted product (or places the quoted order): writes it, debits the credits, starts the work. */
  commit(quote: Quote | string, params?: ProductCommitParams, options?: RequestOptions): APIPromise<Product> {
    const resume_token = typeof quote === 'string' ? quote : quote.resume_token;
    return this.create({ ...params, resume_token }, options).map((result) => {
      if (result.object !== 'product') throw new TypeError(`Expected a product, the API answered a ${result.object}.`);
      return result;
    });
  }

  /** `null` clears the title or custom_id. */
  update(id: string, params: ProductUpdateParams, options?: RequestOptions): APIPromise<Product> {
    return this.client.request('PATCH /v1/products/{id}', { ...byId(id), body: params, options });
  }

  delete(id: string, options?: RequestOptions): APIPromise<ProductDeleted> {
    return this.client.request('DELETE /v1/products/{id}', { ...byId(id), options });
  }

  /** Answers the ids deleted; unknown ids and ids out of reach are simply absent. */
  deleteMany(ids: string[], options?: RequestOptions): APIPromise<ProductsDeleted> {
    return this.client.request('DELETE /v1/products', { query: { ids }, options });
  }

  /** Publishes products (or sets another status); products that cannot be are listed in `refused`. */
  publish(params: ProductPublishParams, options?: RequestOptions): APIPromise<PublishResult> {
    return this.client.request('POST /v1/products/publish', { body: params, options });
  }

  /** Tags in use, with how many products carry each. */
  tags(params?: TagListParams, options?: RequestOptions): PagePromise<TagCount> {
    return this.client.list('GET /v1/products/tags', { query: params, options });
  }

  /** Finished images as a ZIP (select by `ids` or the list's filters); see ExportResult. */
  async export(params: ProductExportParams, options?: RequestOptions): Promise<ExportResult> {
    const response = await this.client.requestStream('GET /v1/products/export', { query: params, options, accept: 'application/zip' });
    if (response.status === 202) return { kind: 'queued', export: (await response.json()) as QueuedExport };
    if (!response.body) throw new TypeError('The export answered without a body.');
    const filename = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? null;
    return { kind: 'zip', body: response.body, filename, response };
  }

  /** Quotes the missing half: a model for an images-only product, renders for a model-only one. Commit it. */
  order(id: string, options?: RequestOptions): APIPromise<Quote> {
    return this.client.request('POST /v1/products/{id}/order', { ...byId(id), options });
  }

  /** One batch of review decisions: images, the model and the product's status, applied together. */
  review(id: string, params: ReviewParams, options?: RequestOptions): APIPromise<Product> {
    return this.client.request('POST /v1/products/{id}/review', { ...byId(id), body: params, options });
  }

  /** An image's finishing settings or position. */
  updateImage(id: string, imageId: string, params: ImageUpdateParams, options?: RequestOptions): APIPromise<Product> {
    return this.client.request('PATCH /v1/products/{id}/images/{image_id}', { path: { id, image_id: imageId }, body: params, options });
  }

  /** The model's viewer settings, or a new `model_url` to replace it. */
  updateModel(id: string, params: ModelUpdateParams, options?: RequestOptions): APIPromise<Product> {
    return this.client.request('PATCH /v1/products/{id}/model', { ...byId(id), body: params, options });
  }

  /** `{scale}` multiplies every dimension; `{dimensions: {height: 0.5}}` scales uniformly to meet one (metres). */
  rescale(id: string, params: RescaleParams, options?: RequestOptions): APIPromise<Product> {
    return this.client.request('POST /v1/products/{id}/model/rescale', { ...byId(id), body: params, options });
  }
}
