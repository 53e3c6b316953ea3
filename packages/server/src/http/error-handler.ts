import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, envelope, type ErrorDetails } from '../core/errors.js';
import { replayAfterError } from './idempotency.js';

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** `body.images[0].settings` style paths, so clients can point at the field. */
function issuePath(context: string, issue: AjvIssue): string {
  let path = context === 'querystring' ? 'query' : context;
  for (const part of issue.instancePath.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(key) ? `[${key}]` : `.${key}`;
  }
  const extra = (issue.params.missingProperty ?? issue.params.additionalProperty) as string | undefined;
  if (extra) path += `.${extra}`;
  return path;
}

function issueMessage(issue: AjvIssue): string {
  if (issue.keyword === 'additionalProperties') return 'is not a known field';
  if (issue.keyword === 'required') return 'is required';
  return issue.message ?? 'is invalid';
}

/**
 * One entry per path. A union of literals fails once per branch; those collapse into
 * "must be one of: …" so clients see the allowed values, not the schema's shape.
 */
function summarise(context: string, issues: AjvIssue[]): { path: string; message: string }[] {
  const byPath = new Map<string, AjvIssue[]>();
  for (const issue of issues) {
    const path = issuePath(context, issue);
    byPath.set(path, [...(byPath.get(path) ?? []), issue]);
  }
  return [...byPath].map(([path, list]) => {
    const allowed = list.filter((i) => i.keyword === 'const').map((i) => JSON.stringify(i.params.allowedValue));
    if (allowed.length > 1) return { path, message: `must be one of: ${allowed.join(', ')}` };
    const meaningful = list.find((i) => i.keyword !== 'anyOf') ?? list[0];
    return { path, message: issueMessage(meaningful) };
  });
}

export function sendError(reply: FastifyReply, status: number, code: string, message: string, details: ErrorDetails) {
  return reply.status(status).type('application/json; charset=utf-8').send(envelope(code, message, details, reply.request.id));
}

/** Maps everything thrown in a request to the envelope. Nothing internal leaks from a 5xx. */
export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler(async (err: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (request.idempotency) {
      try {
        if (await replayAfterError(request, reply)) return reply;
      } catch (replayErr) {
        // Someone else's key, or another request under it: that is the answer, not the effect's error.
        if (replayErr instanceof AppError) err = replayErr;
        else request.log.error({ err: replayErr }, 'idempotency lookup failed');
      }
    }
    if (err instanceof AppError) {
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
      return sendError(reply, err.status, err.code, err.message, err.details);
    }
    const fe = err as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
    if (fe.validation) {
      return sendError(reply, 422, 'validation_failed', 'The request failed validation.', {
        errors: summarise(fe.validationContext ?? 'body', fe.validation),
      });
    }
    switch (fe.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(reply, 400, 'invalid_request', 'The body is not valid JSON.', null);
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, 413, 'payload_too_large', 'The body is larger than this endpoint accepts.', {
          limit_bytes: request.routeOptions.bodyLimit ?? null,
        });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(reply, 415, 'unsupported_media_type', 'This Content-Type is not accepted here.', null);
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendError(reply, 400, 'invalid_request', 'Content-Length does not match the body.', null);
    }
    if (err instanceof SyntaxError && (fe.statusCode ?? 0) === 400) {
      return sendError(reply, 400, 'invalid_request', 'The body is not valid JSON.', null);
    }
    const status = fe.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // The framework's own message may quote the input; the status says what went wrong.
      const message = status === 404 ? 'Not found.' : `The request was refused (${STATUS_CODES[status] ?? status}).`;
      return sendError(reply, status, status === 404 ? 'not_found' : 'invalid_request', message, null);
    }
    request.log.error({ err }, 'unhandled error');
    return sendError(reply, 500, 'internal_error', 'The API failed to handle the request.', null);
  });

  app.setNotFoundHandler((request, reply) =>
    // Never quote the path back: it is whatever the caller sent.
    sendError(reply, 404, 'not_found', 'No route matches this method and path.', null),
  );
}
