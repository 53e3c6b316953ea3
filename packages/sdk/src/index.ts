export { Plinth, type ClientOptions, type Fetch } from './client.js';
export { Plinth as default } from './client.js';
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  PlinthError,
  QuotaExceededError,
  RateLimitError,
  UnprocessableEntityError,
  WebhookVerificationError,
  type ErrorDetails,
} from './core/errors.js';
export { Page, PagePromise, type ListBody } from './core/pagination.js';
export type { RequestOptions, UploadData } from './core/request.js';
export { verifySignature as verifyWebhookSignature, type VerifyOptions, type WebhookHeaders, type WebhookPayload } from './core/webhook-signature.js';
export { WaitForError, type ExportResult, type WaitForOptions, type WaitUntil } from './resources/products.js';
export { APIPromise, type WithResponse } from './core/api-promise.js';
export type { UploadCreateParams } from './resources/uploads.js';
export type * from './types.js';
