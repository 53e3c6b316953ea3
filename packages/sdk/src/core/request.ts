import type { OperationKey, Operations } from '../generated/openapi.js';
import type { ListBody } from './pagination.js';

/** Per-call knobs; every resource method takes them as its last argument. */
export interface RequestOptions {
  /** Cancels the call, including its retries and the wait between them. */
  signal?: AbortSignal;
  /** Milliseconds for each attempt; overrides the client's `timeout`. */
  timeout?: number;
  /** Overrides the client's `maxRetries`. */
  maxRetries?: number;
  /** For POSTs: your own key, e.g. one stored with the job that makes this call, so retries across restarts stay one effect. */
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

/** Bytes for an upload; all of them can be sent again unchanged when a retry needs to. */
export type UploadData = Blob | ArrayBuffer | ArrayBufferView;

type Op<K extends OperationKey> = Operations[K];

/** The arguments of one operation, typed from the OpenAPI document: path parameters are required when the path has any. */
export type CallArgs<K extends OperationKey> = ([Op<K>['path']] extends [never] ? { path?: undefined } : { path: Op<K>['path'] }) & {
  query?: Op<K>['query'];
  body?: Op<K>['body'];
  /** A raw body instead of JSON (uploads). */
  upload?: { data: UploadData; contentType: string };
  options?: RequestOptions;
  /** Extra Accept types (the export answers a ZIP). */
  accept?: string;
};

/** The JSON of any 2xx answer of an operation. */
export type Success<K extends OperationKey> = Op<K>['responses'][keyof Op<K>['responses']];

/** The item type of a list operation. */
export type ItemOf<K extends OperationKey> = Success<K> extends ListBody<infer T> ? T : never;

/** Operations whose answer is a list, so `client.list()` accepts only those. */
export type ListOperation = { [K in OperationKey]: Success<K> extends ListBody<unknown> ? K : never }[OperationKey];

type QueryValue = string | number | boolean | Date | null | undefined;

/**
 * `/v1/products/{id}` with its parameters encoded, plus the query. A filter with several values
 * is repeated (`tag=a&tag=b`), as the API's lists expect.
 */
export function buildURL(baseURL: string, op: OperationKey, path: Record<string, string> | undefined, query: object | undefined): string {
  const template = op.slice(op.indexOf(' ') + 1);
  const filled = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = path?.[name];
    if (typeof value !== 'string' || value === '') throw new TypeError(`${op}: the path parameter "${name}" must be a non-empty string.`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const v of (Array.isArray(value) ? value : [value]) as QueryValue[]) {
      if (v === undefined || v === null) continue;
      search.append(name, v instanceof Date ? v.toISOString() : String(v));
    }
  }
  const qs = search.toString();
  return `${baseURL}${filled}${qs ? `?${qs}` : ''}`;
}

/** A random key per call; the same key goes with every retry of that call. */
export function newIdempotencyKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  // randomUUID exists only in secure contexts in browsers; getRandomValues exists everywhere.
  const bytes = c.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export const methodOf = (op: OperationKey) => op.slice(0, op.indexOf(' '));
