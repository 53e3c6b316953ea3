import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';

/**
 * A lane answers one kind of request from what is already in memory, exactly as the routed handler would
 * (same status, headers and bytes), or returns false without writing anything, and the request goes on to
 * the framework. It must not throw.
 */
export type Lane = (req: IncomingMessage, res: ServerResponse) => boolean;

/** What fastify hands its server factory: the same timeouts it would set on a server of its own. */
interface FactoryOptions {
  http?: ServerOptions | null;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

/**
 * The HTTP server in front of the framework. The storefront's public read is most of the traffic and its
 * answer is a cached byte string once the key and the product are warm: routing, hooks and the reply object
 * cost more than the answer itself (about 6 µs of 25 per request on a 2-core machine). A lane answers such a
 * request before routing; everything else, and every request a lane is not sure of (a cold cache, a refused
 * key or origin, an odd URL), takes the routed path with all its checks.
 *
 * `app.inject()` calls the router directly, past this door: lanes are tested over real connections.
 */
export class FrontDoor {
  private lanes: Lane[] = [];
  /** requests answered by a lane, for tests and operators */
  answered = 0;

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
