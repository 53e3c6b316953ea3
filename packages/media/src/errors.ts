/**
 * The media engine's one error type. `reason` comes from a fixed list, so the server can map each to a job failure
 * code without parsing messages; `details` says which limit or input was at fault.
 */
export const MEDIA_ERROR_REASONS = [
  // Shared by every step.
  'unsupported_format',
  'decode_failed',
  'too_large',
  'processing_limit',
  'tool_missing',
  'tool_failed',
  // Images. These names are also the public failure codes a product's images job reports.
  'too_many_pixels',
  'too_small',
  'corrupt_image',
  'no_images',
  'no_product',
  // Video and product pages.
  'corrupt_video',
  'video_timeout',
  'no_frames',
  'no_product_images',
  // Models (glTF / GLB / USDZ).
  'model_invalid',
  'invalid_gltf',
  'unsupported_model',
  'corrupt_model',
  'empty_model',
  'model_too_large',
  'model_too_complex',
  'invalid_scale',
  'external_uri_refused',
  'external_fetch_failed',
  'no_model',
  // Camera poses and generation.
  'poses_not_found',
  'inconsistent_views',
  'partial_coverage',
  'invalid_hints',
  'no_usable_views',
  'external_failed',
  'external_invalid_model',
  'external_protocol',
  'external_rejected',
  'external_timeout',
] as const;

export type MediaErrorReason = (typeof MEDIA_ERROR_REASONS)[number];

export class MediaError extends Error {
  readonly reason: MediaErrorReason;
  readonly details: Record<string, unknown>;

  constructor(reason: MediaErrorReason, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'MediaError';
    this.reason = reason;
    this.details = details;
  }
}

export function isMediaError(error: unknown): error is MediaError {
  return error instanceof MediaError;
}

/**
 * A refusal of the input itself, which no retry can change. `processing_limit` is not one: the child that
 * ran out of memory or time is gone, and a job may try again in a fresh one before it gives up.
 */
export function isMediaRefusal(error: unknown): error is MediaError {
  return error instanceof MediaError && error.reason !== 'processing_limit';
}
