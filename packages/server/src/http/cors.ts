import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { originAllowed } from './origins.js';

const CACHE_MS = 5_000;

/**
 * Only the publishable-key routes are meant for browsers. A preflight carries no key, so it is answered
 * for an origin some project allows; the real request is then checked against the key's own project.
 */
export function registerCors(
  app: FastifyInstance,
  deps: Deps,
  allowedDomains: (db: Deps['database']['db']) => Promise<string[]>,
  browserRoutes: RegExp[],
  anyOriginRoutes: RegExp[] = [],
) {
  let cached: { at: number; domains: string[] } | null = null;
  const domains = async () => {
    if (!cached || Date.now() - cached.at > CACHE_MS) {
      cached = { at: Date.now(), domains: await allowedDomains(deps.database.db) };
    }
    return cached.domains;
  };

  app.options('/*', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const origin = request.headers.origin;
    const path = request.url.split('?')[0];
    reply.header('Vary', 'Origin');
    // The embed's route admits any origin's preflight: the real request is still judged by the key's own
    // project, and only then can a wrong key (401) be told apart from a wrong origin (403, unreadable).
    const open = anyOriginRoutes.some((r) => r.test(path));
    if (origin && (open || (browserRoutes.some((r) => r.test(path)) && originAllowed(origin, await domains())))) {
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      reply.header('Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key');
      reply.header('Access-Control-Max-Age', '600');
    }
    return reply.status(204).send();
  });

  // A 401 (unknown or revoked key, or a secret key in a page) is readable from any origin, so the page can say
  // "this key is not valid" instead of blaming its own origin. It reveals nothing a wrong key could not learn.
  // An onError hook on the browser routes only (their patterns match the route's own path): it runs when
  // something was thrown, so an answered request pays nothing. The error handler keeps headers set here.
  const readable401 = (request: FastifyRequest, reply: FastifyReply, error: Error & { status?: number; statusCode?: number }, done: () => void) => {
    if ((error.status ?? error.statusCode) === 401 && request.headers.origin && !reply.hasHeader('Access-Control-Allow-Origin')) {
      reply.header('Access-Control-Allow-Origin', '*');
      reply.header('Access-Control-Expose-Headers', 'X-Request-Id');
    }
    done();
  };
  const routes = [...browserRoutes, ...anyOriginRoutes];
  app.addHook('onRoute', (route) => {
    if (!routes.some((r) => r.test(route.url))) return;
    route.onError = [...[route.onError ?? []].flat(), readable401 as never];
  });
}
