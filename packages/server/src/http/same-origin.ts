import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from './auth.js';
import { forbidden } from '../core/errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Where a session cookie can change state: the API, the dashboard's own routes and sign-out. */
const GUARDED = /^\/(v1|dashboard\/api)(\/|$|\?)|^\/auth\/logout(\?|$)/;

function carriesSession(request: FastifyRequest): boolean {
  // A Bearer header means an API key authenticates the request; the cookie is then ignored (http/auth.ts).
  if (request.headers.authorization !== undefined) return false;
  const header = request.headers.cookie;
  return !!header && header.includes(`${SESSION_COOKIE}=`);
}

/**
 * A browser request from another site can carry the session cookie (SameSite=Lax still lets sibling
 * subdomains and top-level navigations through), so a state change made with a cookie must come from
 * the dashboard's own origin: PUBLIC_URL's, or the Host the request was sent to. Browsers always send
 * Origin or Sec-Fetch-Site on such requests; a request with neither comes from a non-browser client,
 * which holds the cookie itself and cannot be forged into sending it.
 */
export function registerSameOriginGuard(app: FastifyInstance, publicUrl: string) {
  const own = new URL(publicUrl).origin;
  const guard = (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    if (SAFE_METHODS.has(request.method) || !GUARDED.test(request.url) || !carriesSession(request)) return done();
    const origin = request.headers.origin;
    const site = request.headers['sec-fetch-site'];
    if (origin !== undefined) {
      const hostOrigin = request.headers.host ? `${request.protocol}://${request.headers.host}` : null;
      if (origin === own || origin === hostOrigin) return done();
      return done(forbidden('origin', `A request signed in with a session cookie must come from the dashboard's own origin, not ${origin.slice(0, 200)}.`));
    }
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      return done(forbidden('origin', "A request signed in with a session cookie must come from the dashboard's own origin."));
    }
    done();
  };
  // Only routes that can change state and sit under a guarded path (or could: a wildcard) carry the guard;
  // a GET pays nothing for it.
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().every((m) => SAFE_METHODS.has(m))) return;
    if (!GUARDED.test(route.url) && !route.url.includes('*')) return;
    route.onRequest = [...[route.onRequest ?? []].flat(), guard as never];
  });
}
