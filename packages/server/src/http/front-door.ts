import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Principal, Scope } from '../core/principal.js';
import type { RateDecision } from '../platform/ratelimit/index.js';
import { EXPOSED_HEADERS } from './auth.js';
import { originAllowed } from './origins.js';

/**
 * A lane answers one kind of request from what is already in memory, exactly as the routed handler would
 * (same status, headers and bytes), or returns false without writing anything, and the request goes on to
 * the framework. It must not throw.
 */
export type Lane = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Sends a request whose body a lane has already read through the router after all (`app.inject` with that
 * body), and copies the router's answer onto the connection: how a lane leaves every error to the router.
 */
export type Replay = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

/** A token bucket decided in this process, for a lane to spend from as the router's auth hook would. */
export interface LaneTokens {
  take(bucket: string): RateDecision;
  /** returns what take spent, when the request goes to the router after all (which takes again) */
  giveBack(bucket: string): void;
}

/** What fastify hands its server factory: the same timeouts it would set on a server of its own. */
interface FactoryOptions {
  http?: ServerOptions | null;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

/**
 * The HTTP server in front of the framework. The storefront's requests are most of the traffic, and once the
 * key (and, for a read, the product's answer) is cached, routing, hooks and the reply object add a third to a
 * half to the cost of answering (a cached read: 16–18 µs of CPU through the router, 14–15 µs in a lane, 12 µs
 * for a bare node:http server on a 2-core machine). A lane answers such a request before routing; everything
 * else, and every request a lane is not sure of (a cold cache, a refused key or origin, an odd URL), takes the
 * routed path with all its checks.
 *
 * `app.inject()` calls the router directly, past this door: lanes are tested over real connections.
 */
export class FrontDoor {
  private lanes: Lane[] = [];
  /** requests a lane took (answered itself, or replayed through the router after reading their body) */
  answered = 0;
  /** set by the app once the router exists */
  replay: Replay = (_req, res) => {
    res.writeHead(503).end();
  };

  add(lane: Lane): void {
    this.lanes.push(lane);
  }

  /** For `Fastify({ serverFactory })`: a node:http server that tries the lanes, then routes. */
  readonly serverFactory = (route: (req: IncomingMessage, res: ServerResponse) => void, options: FactoryOptions): Server => {
    const server = createServer(options.http ?? {}, (req, res) => {
      const lanes = this.lanes;
      for (let i = 0; i < lanes.length; i++) {
        if (lanes[i](req, res)) {
          this.answered++;
          return;
        }
      }
      route(req, res);
    });
    // What fastify sets on a server it makes itself.
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
}

/**
 * A storefront caller as the router's auth hook would admit it, from caches only: a publishable key resolved
 * in the last 5 s, holding `scope`, from an allowed Origin. null means "not sure": the router decides.
 */
export function cachedBrowserCaller(
  headers: IncomingHttpHeaders,
  cachedApiKey: (token: string) => Principal | null | undefined,
  scope: Scope,
): { principal: Principal; origin: string } | null {
  const authorization = headers.authorization;
  if (authorization === undefined || !authorization.startsWith('Bearer pk_')) return null;
  const principal = cachedApiKey(authorization.slice(7));
  if (!principal || principal.kind !== 'publishable_key') return null;
  if (principal.scopes !== null && !principal.scopes.includes(scope)) return null;
  const origin = headers.origin;
  if (origin === undefined || !originAllowed(origin, principal.allowedDomains)) return null;
  return { principal, origin };
}

/**
 * The client address the router knows as `request.ip`: the socket's peer, since the app runs with trustProxy
 * off. Publishable keys' token buckets are named by it, so a lane and the router spend from the same one.
 */
export const clientAddress = (req: IncomingMessage): string | undefined => req.socket.remoteAddress;

/** The headers the router's auth hook sets for a storefront caller: request id, CORS, rate-limit signals. */
export function browserHeaders(requestId: string, origin: string, vary: string, decision: RateDecision | undefined): Record<string, string | number> {
  const out: Record<string, string | number> = {
    'x-request-id': requestId,
    'access-control-allow-origin': origin,
    'access-control-expose-headers': EXPOSED_HEADERS,
    vary,
  };
  if (decision) {
    out['ratelimit-limit'] = String(decision.limit);
    out['ratelimit-remaining'] = String(decision.remaining);
    out['ratelimit-reset'] = String(decision.resetSeconds);
  }
  return out;
}
