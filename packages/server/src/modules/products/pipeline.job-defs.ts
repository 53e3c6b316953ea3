import { Type, type Static } from '@sinclair/typebox';
import { defineJob } from '../../platform/jobs/define.js';

/**
 * A product's pipeline jobs as their producers see them: name, payload and retry policy. products enqueues them
 * (a create, an order, `PATCH …/model`) and owns the state they report; ingest (`ingest.jobs.ts`,
 * `model-redeliver.ts`) and generation (`generation.jobs.ts`) register their handlers in the worker. Defined
 * here, below both, so that enqueueing a job imports neither the code that runs it nor its module.
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

/** Generation and renders get one retry; the second failure is final and refunds. */
const RETRIES = 1;

/** A paid order of a model or of renders: the product, and the credits it cost (refunded on failure). */
export const OrderPayload = Type.Object({ product_id: Type.String(), credits: Type.Integer({ minimum: 0 }) });
export type OrderData = Static<typeof OrderPayload>;

/** Generates a product's model from its photos (an order, or a create with generate_model). */
export const generateModelJob = defineJob({ name: 'generate.model', payload: OrderPayload, retryLimit: RETRIES });

/** Renders turntable images of a model-only product's model. */
export const renderImagesJob = defineJob({ name: 'render.images', payload: OrderPayload, retryLimit: RETRIES });
