import { randomBytes } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { envelope } from '../core/errors.js';

/**
 * Errors raised before any route runs (by Node's HTTP parser or by the router) answer the same
 * envelope as every other error, with an X-Request-Id, and never quote the input back: the input is
 * what an attacker controls, and an echo is how a reflected payload gets into a page or a log viewer.
 */

/** Path segments longer than this are refused with 414 before routing (the router's own parameter limit). */
export const MAX_SEGMENT = 100;
const URI_TOO_LONG_PATH = '/v1/_refused/uri-too-long';

/** Messages by status, fixed text only. */
function messageFor(status: number): string {
  switch (status) {
    case 408:
      return 'The request took too long to arrive.';
    case 414:
      return 'The URL is too long.';
    case 431:
      return 'The request headers are too large.';
    default:
      return 'The request is malformed.';
  }
}

/** Ids for answers written on the raw socket, where no request object (and its id) exists yet. */
function rawRequestId(): string {
  return `req_x${randomBytes(9).toString('base64url')}`;
}

/**
 * Node's parser refuses the request (headers over the size limit, a NUL or a bad character in a
 * header, an unknown method, a broken request line). Fastify has no request or reply yet, so the
 * answer is written on the socket by hand, as Node itself would, then the connection is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const id = rawRequestId();
  const body = JSON.stringify(envelope('invalid_request', messageFor(status), null, id));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${id}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** The router could not decode the path (bad percent-encoding) or a parameter is over its limit. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
  reply
    .status(status)
    .header('X-Request-Id', request.id)
    .type('application/json; charset=utf-8')
    .send(envelope('invalid_request', messageFor(status), null, request.id));
}

/**
 * A path segment over the limit goes to one route that answers 414, whatever route it aimed at: a
 * catch-all route (static files) would otherwise take it before the router's own check.
 */
export function rewriteUrl(req: IncomingMessage): string {
  const url = req.url ?? '/';
  if (url.length <= MAX_SEGMENT) return url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (path.length <= MAX_SEGMENT) return url;
  for (const segment of path.split('/')) if (segment.length > MAX_SEGMENT) return URI_TOO_LONG_PATH;
  return url;
}

export function registerFrameworkErrorRoutes(app: FastifyInstance): void {
  // GET routes answer HEAD too.
  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: URI_TOO_LONG_PATH,
    config: { auth: 'public' },
    schema: { hide: true },
    handler: (request, reply) =>
      reply.status(414).type('application/json; charset=utf-8').send(envelope('invalid_request', messageFor(414), null, request.id)),
  });
}
