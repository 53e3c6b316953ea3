/**
 * One base error, one subclass per status. Every non-2xx answer of the API is the envelope
 * `{error: {code, message, details, request_id}}`; the class tells callers what kind of failure it
 * was without reading the status, and `code` / `details` tell them exactly which.
 */

export type ErrorDetails = Record<string, unknown> | null;

export interface PlinthErrorInit {
  status?: number;
  code: string;
  details?: ErrorDetails;
  requestId?: string | null;
  headers?: Headers;
  cause?: unknown;
}

export class PlinthError extends Error {
  override name = 'PlinthError';
  /** The HTTP status; undefined when the request never reached the API. */
  readonly status: number | undefined;
  /** Stable machine-readable code, e.g. `not_found`, `quota_exceeded`. */
  readonly code: string;
  /** Structured context: per-field validation errors, the reason of a conflict, … */
  readonly details: ErrorDetails;
  /** The request's id (`X-Request-Id`), to quote when asking the API's operator about it. */
  readonly requestId: string | null;
  readonly headers: Headers | undefined;

  constructor(message: string, init: PlinthErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? null;
    this.requestId = init.requestId ?? null;
    this.headers = init.headers;
  }
}

/** 400: malformed request, or a resume that changes the quote (`quote_changed`, `quote_expired`). */
export class BadRequestError extends PlinthError {
  override name = 'BadRequestError';
}
/** 401: the key is missing, invalid or revoked. */
export class AuthenticationError extends PlinthError {
  override name = 'AuthenticationError';
}
/** 402: the plan does not allow it; `details.reason` says why (`no_plan`, `trial_used`, …). */
export class PaymentRequiredError extends PlinthError {
  override name = 'PaymentRequiredError';
}
/** 403: a valid key lacking a scope, an allowed origin or a role; `details.reason` says which. */
export class PermissionDeniedError extends PlinthError {
  override name = 'PermissionDeniedError';
}
/** 404: no such resource, or one outside the caller's organizations. */
export class NotFoundError extends PlinthError {
  override name = 'NotFoundError';
}
/** 409: duplicate `custom_id`, a used resume token, an order that cannot be placed (`details.reason`). */
export class ConflictError extends PlinthError {
  override name = 'ConflictError';
}
/** 422: validation failed; `details.errors` lists `{path, message}`. */
export class UnprocessableEntityError extends PlinthError {
  override name = 'UnprocessableEntityError';
}

/** 429 `rate_limited`: too many requests; retried automatically within the client's maxRetries. */
export class RateLimitError extends PlinthError {
  override name = 'RateLimitError';
  /** Seconds the API asked to wait, when it said. */
  readonly retryAfter: number | null;
  constructor(message: string, init: PlinthErrorInit) {
    super(message, init);
    // A browser cannot read Retry-After on a cross-origin answer unless the API exposes it; the envelope repeats it.
    const inBody = init.details?.retry_after_seconds;
    this.retryAfter = parseRetryAfterSeconds(init.headers?.get('retry-after') ?? null) ?? (typeof inBody === 'number' ? inBody : null);
  }
}

/**
 * 429 `quota_exceeded`: not enough credits for a generation. A sibling of RateLimitError, not a
 * subclass, so that code catching rate limits to wait and retry never waits on a quota: no amount
 * of waiting buys credits.
 */
export class QuotaExceededError extends PlinthError {
  override name = 'QuotaExceededError';
  /** Credits missing for the operation (`details.shortfall_credits`). */
  readonly shortfallCredits: number | null;
  /** Credits the operation costs (`details.required_credits`). */
  readonly requiredCredits: number | null;
  constructor(message: string, init: PlinthErrorInit) {
    super(message, init);
    const n = (v: unknown) => (typeof v === 'number' ? v : null);
    this.shortfallCredits = n(init.details?.shortfall_credits);
    this.requiredCredits = n(init.details?.required_credits);
  }
}

/** 5xx: the API failed to handle the request. */
export class InternalServerError extends PlinthError {
  override name = 'InternalServerError';
}

/** The request never reached the API, or its answer never came back: no status. */
export class APIConnectionError extends PlinthError {
  override name = 'APIConnectionError';
  constructor(message = 'Could not reach the Plinth API.', init: Partial<PlinthErrorInit> = {}) {
    super(message, { code: 'connection_error', ...init, status: undefined });
  }
}

/** No answer within the client's `timeout`. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
  constructor(message = 'The request to the Plinth API timed out.', init: Partial<PlinthErrorInit> = {}) {
    super(message, { code: 'connection_timeout', ...init });
  }
}

/** The caller's own AbortSignal ended the request; never retried. */
export class APIUserAbortError extends PlinthError {
  override name = 'APIUserAbortError';
  constructor(message = 'The request was aborted.', init: Partial<PlinthErrorInit> = {}) {
    super(message, { code: 'aborted', ...init, status: undefined });
  }
}

/** A webhook whose signature, timestamp or headers do not check out. */
export class WebhookVerificationError extends PlinthError {
  override name = 'WebhookVerificationError';
  constructor(message: string, code = 'invalid_signature') {
    super(message, { code });
  }
}

type ErrorClass = new (message: string, init: PlinthErrorInit) => PlinthError;

const BY_STATUS: Record<number, ErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
};

/** The typed error for a non-2xx answer; a body that is not the envelope (a proxy's page) still maps by status. */
export function errorFromResponse(status: number, body: unknown, headers: Headers): PlinthError {
  const envelope = (body as { error?: Record<string, unknown> } | null)?.error;
  const text = typeof body === 'string' && body.trim() ? body.trim().slice(0, 200) : null;
  const init: PlinthErrorInit = {
    status,
    code: typeof envelope?.code === 'string' ? envelope.code : `http_${status}`,
    details: envelope?.details && typeof envelope.details === 'object' ? (envelope.details as Record<string, unknown>) : null,
    requestId: (typeof envelope?.request_id === 'string' ? envelope.request_id : null) ?? headers.get('x-request-id'),
    headers,
  };
  const message = typeof envelope?.message === 'string' ? envelope.message : (text ?? `The API answered ${status}.`);
  if (status === 429) return init.code === 'quota_exceeded' ? new QuotaExceededError(message, init) : new RateLimitError(message, init);
  if (status >= 500) return new InternalServerError(message, init);
  const Class = BY_STATUS[status] ?? PlinthError;
  return new Class(message, init);
}

/** `Retry-After` as seconds: a number of seconds, or an HTTP date. */
export function parseRetryAfterSeconds(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}
