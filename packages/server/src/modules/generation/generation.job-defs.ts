import { Type, type Static } from '@sinclair/typebox';
import { defineJob } from '../../platform/jobs/define.js';

/**
 * The paid jobs as their producers see them (an order, a create with generate_model, the end of an ingestion):
 * name, payload and retry policy. Their handlers are in `generation.jobs.ts`, registered by the worker.
 */

/** Generation and renders get one retry; the second failure is final and refunds. */
const RETRIES = 1;

/** A paid order of a model or of renders: the product, and the credits it cost (refunded on failure). */
export const OrderPayload = Type.Object({ product_id: Type.String(), credits: Type.Integer({ minimum: 0 }) });
export type OrderData = Static<typeof OrderPayload>;

/** Generates a product's model from its photos (an order, or a create with generate_model). */
export const generateModelJob = defineJob({ name: 'generate.model', payload: OrderPayload, retryLimit: RETRIES });

/** Renders turntable images of a model-only product's model. */
export const renderImagesJob = defineJob({ name: 'render.images', payload: OrderPayload, retryLimit: RETRIES });
