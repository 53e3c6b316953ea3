import type { ProductSource } from './products.types.js';

/** The job queue that ingests each kind of source. */
export const INGEST_QUEUES = {
  image_urls: 'ingest.images',
  image_paths: 'ingest.images',
  video_url: 'ingest.video',
  source_url: 'ingest.page',
  model_url: 'ingest.model',
} as const satisfies Record<ProductSource['kind'], string>;

export const ingestQueueFor = (kind: ProductSource['kind']) => INGEST_QUEUES[kind];

/** Retries after the first attempt; the handler treats the last attempt's failure as final. */
export const INGEST_RETRIES = 2;
