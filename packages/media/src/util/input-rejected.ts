/**
 * Thrown when an upload (image, video, page, model) can never be processed, no matter how often
 * it is retried. Job handlers turn it into a permanent failure with `reason` as the public code,
 * whereas any other error is treated as transient and retried.
 */
export type InputRejectedReason =
  | 'too_many_pixels'
  | 'unsupported_format'
  | 'corrupt_image'
  | 'too_small'
  | 'no_frames'
  | 'corrupt_video'
  | 'video_timeout'
  | 'no_product_images'
  | (string & {});

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

export function isInputRejected(err: unknown): err is InputRejected {
  return err instanceof InputRejected;
}
