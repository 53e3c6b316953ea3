import type { Readable } from 'node:stream';

export interface StoredObject {
  bytes: number;
  contentType: string | null;
}

/**
 * Blob storage keyed by relative paths such as `orgs/org_…/products/prod_…/img_….jpg`.
 * Keys never start with `/` and never contain `..`; adapters reject such keys.
 */
export interface BlobStore {
  readonly kind: 'disk' | 's3';
  put(key: string, body: Buffer | Readable, opts?: { contentType?: string }): Promise<StoredObject>;
  /** the object as a stream; throws BlobNotFoundError when absent */
  get(key: string): Promise<Readable>;
  getBuffer(key: string): Promise<Buffer>;
  head(key: string): Promise<StoredObject | null>;
  delete(key: string): Promise<void>;
  /** deletes every object whose key starts with prefix */
  deletePrefix(prefix: string): Promise<void>;
  /** keys under a prefix (used by cleanup and tests) */
  list(prefix: string): Promise<string[]>;
  /** absolute URL a browser can load the object from */
  publicUrl(key: string): string;
  /** absolute URL of the authenticated route that serves a private object to its organization */
  privateUrl(key: string): string;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class BlobNotFoundError extends Error {
  constructor(key: string) {
    super(`no such object: ${key}`);
    this.name = 'BlobNotFoundError';
  }
}
