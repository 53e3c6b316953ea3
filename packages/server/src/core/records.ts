/**
 * The record types many modules share: a product's states, an image's origin and review, and the reason a job
 * gives when it fails. Each list is written once here; the tables, the schemas and the services take it from here.
 */

export const PRODUCT_STATUSES = ['draft', 'published', 'archived'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

export const MODEL_STATUSES = ['none', 'queued', 'generating', 'ready', 'failed'] as const;
export type ModelStatus = (typeof MODEL_STATUSES)[number];

export const REVIEW_STATUSES = ['pending', 'accepted', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export type ImageOrigin = 'fetched' | 'uploaded' | 'video_frame' | 'rendered';

/** Why something failed, as the API shows it: a stable code and a sentence. */
export interface ProblemInfo {
  code: string;
  message: string;
}
