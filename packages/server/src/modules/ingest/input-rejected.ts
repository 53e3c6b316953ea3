/**
 * Thrown by the server's own checks when a job's input can never be processed, no matter how often it is
 * retried: the upload is gone, the page shows no product, there is nothing to render. What the media engine
 * refuses arrives as a MediaError instead; job handlers treat both as permanent failures whose `reason` is
 * the public code, whereas any other error is transient and retried.
 */
export type InputRejectedReason = 'upload_missing' | 'no_product_images' | 'no_model' | 'no_usable_views' | 'external_uri_refused';

export class InputRejected extends Error {
  override readonly name = 'InputRejected';

  constructor(
    readonly reason: InputRejectedReason,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}
