/**
 * The one list of error codes. Services throw AppError with a code from here;
 * the HTTP layer maps the code to its status and the envelope.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  quote_changed: 400,
  quote_expired: 400,
  unauthenticated: 401,
  plan_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  org_id_required: 422,
  rate_limited: 429,
  quota_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type ErrorDetails = Record<string, unknown> | null;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = null, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what = 'resource') => new AppError('not_found', `No such ${what}.`);

export const forbidden = (reason: 'scope' | 'origin' | 'role', message: string, extra: Record<string, unknown> = {}) =>
  new AppError('forbidden', message, { reason, ...extra });

export const validationFailed = (errors: { path: string; message: string }[], message = 'The request failed validation.') =>
  new AppError('validation_failed', message, { errors });

export interface ErrorEnvelope {
  error: { code: string; message: string; details: ErrorDetails; request_id: string };
}

export function envelope(code: string, message: string, details: ErrorDetails, requestId: string): ErrorEnvelope {
  return { error: { code, message, details, request_id: requestId } };
}
