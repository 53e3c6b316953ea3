import { Type, type Static } from '@sinclair/typebox';
import { defineJob } from '../../platform/jobs/define.js';

/**
 * The ingestion jobs as their producers see them (a create, an import, `PATCH …/model`): name, payload and
 * retry policy. Their handlers are in `ingest.jobs.ts` and `model-redeliver.ts`, registered by the worker.
 */

/** What every ingestion job carries: the product, and the credits its model order paid (refunded on failure). */
export const IngestPayload = Type.Object({
  product_id: Type.String(),
  generation_credits: Type.Integer({ minimum: 0 }),
});
export type IngestData = Static<typeof IngestPayload>;

/** Retries after the first attempt; a fetch that timed out may well work a second later. */
const INGEST_RETRIES = 2;

const ingestJob = (name: string) => defineJob({ name, payload: IngestPayload, retryLimit: INGEST_RETRIES });

/** Image URLs and uploaded images: the same job, told apart by the product's source. */
export const ingestImagesJob = ingestJob('ingest.images');
export const ingestPageJob = ingestJob('ingest.page');
export const ingestVideoJob = ingestJob('ingest.video');

/** The ingestion job of each kind of source; a model import is ingestModelJob, which carries its URL. */
export const INGEST_JOBS = {
  image_urls: ingestImagesJob,
  image_paths: ingestImagesJob,
  video_url: ingestVideoJob,
  source_url: ingestPageJob,
} as const;

/**
 * Imports a model file. The URL travels in the payload, not read back from the product: a replacement
 * (PATCH …/model) imports the URL it was given, while the product's source still names the first one.
 */
export const ingestModelJob = defineJob({
  name: 'ingest.model',
  payload: Type.Object({ product_id: Type.String(), model_url: Type.String({ minLength: 1 }), replaces: Type.Union([Type.String(), Type.Null()]) }),
  retryLimit: INGEST_RETRIES,
});

/**
 * Makes a model's deliveries again from its master, with the budgets its record holds now (PATCH
 * …/model {delivery_budgets}). The old deliveries keep being served until the new ones are recorded.
 */
export const redeliverModelJob = defineJob({
  name: 'model.redeliver',
  payload: Type.Object({ product_id: Type.String(), master_key: Type.String({ minLength: 1 }) }),
  retryLimit: 1,
});
