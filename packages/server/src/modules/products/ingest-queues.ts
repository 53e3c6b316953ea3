import { QUEUES } from '../../queues.js';
import type { ProductSource } from './products.types.js';

/** The job queue that ingests each kind of source. */
export const INGEST_QUEUES = {
  image_urls: QUEUES.ingestImages,
  image_paths: QUEUES.ingestImages,
  video_url: QUEUES.ingestVideo,
  source_url: QUEUES.ingestPage,
  model_url: QUEUES.ingestModel,
} as const satisfies Record<ProductSource['kind'], string>;

export const ingestQueueFor = (kind: ProductSource['kind']) => INGEST_QUEUES[kind];

/** Retries after the first attempt; the handler treats the last attempt's failure as final. */
export const INGEST_RETRIES = 2;
