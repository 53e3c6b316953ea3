import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { validationFailed } from '../core/errors.js';

/**
 * JSON may spell a lone UTF-16 surrogate ("a\ud800b"), which is no character at all: stored, it comes
 * back as replacement characters (or breaks a UTF-8 consumer downstream). Such a body is refused with
 * 422 naming every path, before validation and before anything is stored.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function illFormedPaths(value: unknown, path = 'body', out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) out.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => illFormedPaths(v, `${path}[${i}]`, out));
  } else if (value && typeof value === 'object' && isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (LONE_SURROGATE.test(k)) out.push(`${path}.${k.replace(new RegExp(LONE_SURROGATE, 'g'), '\uFFFD')}`);
      illFormedPaths(v, `${path}.${k}`, out);
    }
  }
  return out;
}

/** Parsed JSON is plain objects and arrays; a raw upload body (a stream, a Buffer) is never walked. */
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const BODILESS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function registerWellFormedBodies(app: FastifyInstance): void {
  // A callback hook: no promise per request for a check that is a loop over the parsed body. Only routes
  // that take a body carry it.
  const check = (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    const bad = request.body === undefined || request.body === null ? [] : illFormedPaths(request.body);
    if (!bad.length) return done();
    done(validationFailed(bad.map((path) => ({ path, message: 'contains a lone UTF-16 surrogate (not a valid character)' }))));
  };
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().every((m) => BODILESS.has(m))) return;
    route.preValidation = [check as never, ...[route.preValidation ?? []].flat()];
  });
}
