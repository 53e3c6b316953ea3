import type { Config } from '../../config.js';
import { DiskBlobStore, diskRootFromUrl } from './disk-store.js';
import { S3BlobStore, type S3StoreOptions } from './s3-store.js';
import type { BlobStore } from './types.js';

export { BlobNotFoundError, type BlobStore, type StoredObject } from './types.js';
export { DiskBlobStore } from './disk-store.js';
export { S3BlobStore, type S3StoreOptions } from './s3-store.js';
export { parseS3Url, type S3Location } from './s3-config.js';

/** Picks disk or S3 from STORAGE_URL; `options` carries S3 credentials that config read from the environment. */
export function createBlobStore(config: Readonly<Config>, options: S3StoreOptions = {}): BlobStore {
  if (config.storageUrl.startsWith('file://')) return new DiskBlobStore(diskRootFromUrl(config.storageUrl), config.publicUrl);
  if (config.storageUrl.startsWith('s3://')) return new S3BlobStore(config.storageUrl, config.publicUrl, options);
  throw new Error(`STORAGE_URL must start with file:// or s3://, got ${config.storageUrl}`);
}
