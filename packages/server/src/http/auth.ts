import { fastifyCookie } from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import type { Principal, PrincipalSource, Scope } from '../core/principal.js';
import { AppError, forbidden } from '../core/errors.js';
import { originAllowed } from './origins.js';
import type { RateRule } from '../platform/ratelimit/index.js';

/**
 * What a route demands of its caller. `scope: null` means the route is covered by no scope in the
 * seed's table (keys, projects), so only a key with full access (no scopes) or a session may call it.
 */
export interface AuthRule {
  scope: Scope | null;
  /** the two routes a publishable key may call */
  publishable?: boolean;
  /** dashboard sessions are accepted unless false */
  session?: boolean;
  /** which token bucket the request spends */
  bucket?: 'api' | 'beacon';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRule | 'public';
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

export const SESSION_COOKIE = 'plinth_session';

/** What browser code may read of an answer: the request id and the rate-limit signals. */
export const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset';

function bearer(request: FastifyRequest): string | null | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  // The usual shape, read without a match array; anything else goes through the full pattern.
  if (header.startsWith('Bearer ')) {
    const token = header.slice(7);
    if (token && !/\s/.test(token)) return token;
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}

async function authenticate(request: FastifyRequest, rule: AuthRule, auth: PrincipalSource): Promise<Principal> {
  const token = bearer(request);
  if (token === null) throw new AppError('unauthenticated', 'The Authorization header must be "Bearer <API key>".');
  if (token) {
    const principal = await auth.fromApiKey(token);
    if (!principal) throw new AppError('unauthenticated', 'The API key is invalid or has been revoked.');
    return principal;
  }
  const cookie = request.headers.cookie ? fastifyCookie.parse(request.headers.cookie)[SESSION_COOKIE] : undefined;
  if (cookie && rule.session !== false) {
    const principal = await auth.fromSession(cookie);
    if (principal) return principal;
    throw new AppError('unauthenticated', 'The session has expired; sign in again.');
  }
  throw new AppError('unauthenticated', 'No API key was given. Send "Authorization: Bearer <API key>".');
}

/**
 * Who calls a public route, if anyone says: a valid API key or a live session, or null (no credentials, or
 * credentials that do not hold). A public route answers either way; this only decides what it adds.
 */
export async function optionalPrincipal(request: FastifyRequest, auth: PrincipalSource): Promise<Principal | null> {
  const token = bearer(request);
  if (token) return auth.fromApiKey(token).catch(() => null);
  const cookie = request.headers.cookie ? fastifyCookie.parse(request.headers.cookie)[SESSION_COOKIE] : undefined;
  return cookie ? auth.fromSession(cookie).catch(() => null) : null;
}

/**
 * Browsers send no Origin on a same-origin GET; they do send Sec-Fetch-Site, which page scripts cannot
 * set. Such a request comes from this API's own origin, which the project must still allow.
 */
function callerOrigin(request: FastifyRequest): string | undefined {
  if (request.headers.origin) return request.headers.origin;
  if (request.headers['sec-fetch-site'] === 'same-origin' && request.headers.host) return `${request.protocol}://${request.headers.host}`;
  return undefined;
}

function authorize(request: FastifyRequest, rule: AuthRule, principal: Principal): void {
  if (principal.kind === 'publishable_key') {
    if (!rule.publishable) {
      throw forbidden('scope', 'A publishable key may only read a published product and send beacons; use a secret key.');
    }
    const origin = callerOrigin(request);
    if (!origin) {
      throw forbidden('origin', 'A publishable key works only from a browser origin listed in its project\'s allowed_domains.');
    }
    if (!originAllowed(origin, principal.allowedDomains)) {
      throw forbidden('origin', `Origin ${origin} is not in this project's allowed_domains.`);
    }
  }
  if (principal.scopes === null) return;
  if (rule.scope === null || !principal.scopes.includes(rule.scope)) {
    throw forbidden(
      'scope',
      rule.scope ? `This key lacks the scope ${rule.scope}.` : 'This endpoint needs a key without scope restrictions.',
      { required_scope: rule.scope },
    );
  }
}

/** The token bucket a request spends from. Publishable keys live in public pages: one visitor's flood must not use up the whole key. */
export function rateBucket(rule: AuthRule, principal: Principal, ip: string | undefined): string {
  const who = principal.keyId ?? `user:${principal.userId}`;
  return `${rule.bucket === 'beacon' ? 'beacon' : 'api'}:${who}${principal.kind === 'publishable_key' ? `:${ip}` : ''}`;
}

export function rateRule(limits: Deps['config']['rateLimits'], rule: AuthRule): RateRule {
  const beacon = rule.bucket === 'beacon';
  return { perSecond: beacon ? limits.beaconPerSecond : limits.apiPerSecond, burst: beacon ? limits.beaconBurst : limits.apiBurst };
}

/** Nothing to spend when rate limits are off: the hot path then stays synchronous. */
function spendToken(request: FastifyRequest, reply: FastifyReply, rule: AuthRule, principal: Principal, deps: Deps): Promise<void> | undefined {
  const limits = deps.config.rateLimits;
  if (!limits.enabled) return undefined;
  return deps.rateLimiter
    .take(rateBucket(rule, principal, request.ip), rateRule(limits, rule))
    .then((decision) => {
      reply.header('RateLimit-Limit', String(decision.limit));
      reply.header('RateLimit-Remaining', String(decision.remaining));
      reply.header('RateLimit-Reset', String(decision.resetSeconds));
      if (!decision.allowed) {
        throw new AppError(
          'rate_limited',
          'Too many requests; retry after the delay in Retry-After.',
          { retry_after_seconds: decision.retryAfterSeconds },
          { 'Retry-After': String(decision.retryAfterSeconds) },
        );
      }
    });
}

/** What follows a resolved principal: the route's checks, the CORS answer for a page, then the token bucket. */
function admit(request: FastifyRequest, reply: FastifyReply, rule: AuthRule, principal: Principal, deps: Deps): Promise<void> | undefined {
  authorize(request, rule, principal);
  request.principal = principal;
  if (principal.kind === 'publishable_key' && request.headers.origin) {
    // Lower-case names: fastify lower-cases each name it is given (a new string per call); the wire is the same.
    reply.header('access-control-allow-origin', request.headers.origin);
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    reply.header('vary', 'Origin');
  }
  return spendToken(request, reply, rule, principal, deps);
}

/**
 * 401 before 403 before anything the handler decides (404 for another organization's ids).
 *
 * The check is added to each route that declares a rule, with the rule bound when the route is made, so
 * a public route runs no auth code at all. It is a callback hook: a key found in the 5 s cache is checked
 * without a promise, a database read or a hash (see Authenticator.cachedApiKey).
 */
export function registerAuth(app: FastifyInstance, deps: Deps, auth: PrincipalSource) {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRoute', (route) => {
    const rule = route.config?.auth;
    if (!rule || rule === 'public') return;
    const check = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
      const token = bearer(request);
      const cached = token ? auth.cachedApiKey(token) : undefined;
      let pending: Promise<void> | undefined;
      try {
        if (cached === null) throw new AppError('unauthenticated', 'The API key is invalid or has been revoked.');
        if (cached) pending = admit(request, reply, rule, cached, deps);
        else pending = authenticate(request, rule, auth).then((principal) => admit(request, reply, rule, principal, deps));
      } catch (err) {
        return done(err as Error);
      }
      if (pending) pending.then(() => done(), done);
      else done();
    };
    route.onRequest = [...[route.onRequest ?? []].flat(), check];
  });
}
