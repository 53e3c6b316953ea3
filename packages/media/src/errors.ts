/**
 * The media engine's one error type. `reason` comes from a fixed list, so the server can map each to a job failure
 * code without parsing messages; `details` says which limit or input was at fault.
 */
export const MEDIA_ERROR_REASONS = [
  'unsupported_format',
  'decode_failed',
  'too_large',
  'model_invalid',
  'model_too_complex',
  'no_frames',
  'no_images',
  'no_product',
  'poses_not_found',
  'inconsistent_views',
  'tool_missing',
  'tool_failed',
  'processing_limit',
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
