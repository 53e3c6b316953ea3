import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifySchema } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { Deps } from './deps.js';
import { registerAuth } from './http/auth.js';
import { registerCors } from './http/cors.js';
import { FrontDoor } from './http/front-door.js';
import { registerDocs } from './http/docs.js';
import { finishDocument } from './http/openapi-document.js';
import { registerErrorHandling } from './http/error-handler.js';
import { clientErrorHandler, frameworkErrors, registerFrameworkErrorRoutes, rewriteUrl } from './http/framework-errors.js';
import { registerIdempotency } from './http/idempotency.js';
import { validators } from './http/validation.js';
import { registerWellFormedBodies } from './http/well-formed.js';
import { registerSameOriginGuard } from './http/same-origin.js';
import { Authenticator } from './modules/auth/index.js';
import { assetsRoutes } from './modules/assets/assets.routes.js';
import { analyticsRoutes } from './modules/analytics/analytics.routes.js';
import { BeaconIntake } from './modules/analytics/index.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { captureMatRoutes } from './modules/capture-mat/capture-mat.routes.js';
import { dashboardApiRoutes } from './modules/dashboard-api/dashboard-api.routes.js';
import { dashboardWebRoutes } from './modules/dashboard-web/dashboard-web.routes.js';
import { embedRoutes } from './modules/embed/embed.routes.js';
import { embedProductRoutes } from './modules/embed/embed-product.routes.js';
import { exportRoutes } from './modules/export/export.routes.js';
import { filesRoutes } from './modules/files/files.routes.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { keysRoutes } from './modules/keys/keys.routes.js';
import { productsRoutes } from './modules/products/products.routes.js';
import { PublicAnswers } from './modules/products/public-read-lane.js';
import { openLanes } from './lanes.js';
import { allowedDomains } from './modules/projects/index.js';
import { projectsRoutes } from './modules/projects/projects.routes.js';
import { reviewRoutes } from './modules/review/review.routes.js';
import { uploadsRoutes } from './modules/uploads/uploads.routes.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import { experimentsRoutes } from './modules/experiments/experiments.routes.js';
import { requestLogger, requestLoggerOf } from './logger.js';
import { VERSION } from './version.js';

/** Routes a publishable key may call from a browser (CORS is answered for these only). */
const BROWSER_ROUTES = [/^\/v1\/products\/[^/]+$/, /^\/v1\/beacon$/];
/** The embed's own read: its preflight is answered for any origin, so a wrong key's 401 reaches the element. */
const EMBED_ROUTES = [/^\/embed\/products\/[^/]+$/];

/** Unique across processes (random prefix per app) and cheap per request (a counter). */
function requestIds() {
  const prefix = randomBytes(6).toString('base64url');
  let n = 0;
  return () => `req_${prefix}${(++n).toString(36)}`;
}

/**
 * Query fields with a default (limit, offset) are validated as required after ajv fills the default in;
 * to a client they are optional, and the document says so.
 */
function documentDefaults({ schema, url }: { schema: FastifySchema; url: string }) {
  const query = schema?.querystring as { properties?: Record<string, { default?: unknown }>; required?: string[] } | undefined;
  if (!query?.required || !query.properties) return { schema, url };
  const required = query.required.filter((name) => query.properties![name]?.default === undefined);
  return { schema: { ...schema, querystring: { ...query, required } }, url };
}

export interface AppOptions {
  /** log requests (off in tests) */
  logRequests?: boolean;
}

export async function buildApp(deps: Deps, opts: AppOptions = {}): Promise<FastifyInstance> {
  // Fastify given a logger times every response and adds 'finish' and 'error' listeners to it, for its access
  // lines. Those lines are written at info only, so below info (production's usual warn) it gets no logger:
  // request.log still writes to ours, bound to the request id, so errors keep their reqId. The level is read
  // here, at start: access lines follow LOG_LEVEL as the app starts with it.
  const accessLog = opts.logRequests === true && deps.logger.isLevelEnabled('info');
  const requestId = requestIds();
  const frontDoor = new FrontDoor();
  const app = Fastify({
    serverFactory: frontDoor.serverFactory as never,
    ...(accessLog && { loggerInstance: deps.logger as FastifyBaseLogger }),
    logController: new LogController({ disableRequestLogging: !accessLog }),
    bodyLimit: deps.config.bodyLimitBytes,
    genReqId: requestId,
    childLoggerFactory: (accessLog ? requestLogger : requestLoggerOf(deps.logger)) as never,
    trustProxy: false, // the front door's lanes name token buckets by the socket's peer, as request.ip is here
    ajv: { customOptions: { coerceTypes: 'array' } },
    clientErrorHandler,
    frameworkErrors,
    rewriteUrl,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validators());

  // A callback hook, not an async one: no promise and microtask on every request for one header.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id); // lower case: fastify would lower-case it on every request
    done();
  });
  registerErrorHandling(app);
  registerFrameworkErrorRoutes(app);
  registerWellFormedBodies(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Plinth API',
        version: VERSION,
        description: 'Products with finished images and 3D models that shoppers can view and place in AR.',
      },
      servers: [{ url: deps.config.publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'A secret (sk_) or publishable (pk_) key.' },
          session: { type: 'apiKey', in: 'cookie', name: 'plinth_session' },
        },
      },
      security: [{ apiKey: [] }, { session: [] }],
    },
    transform: documentDefaults,
    transformObject: (document) => finishDocument(('openapiObject' in document ? document.openapiObject : document.swaggerObject) as Record<string, unknown>),
  });
  await registerDocs(app);
  app.get('/v1/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());

  registerSameOriginGuard(app, deps.config.publicUrl);
  const auth = new Authenticator(deps);
  registerAuth(app, deps, auth);
  registerIdempotency(app, deps);
  registerCors(app, deps, allowedDomains, BROWSER_ROUTES, EMBED_ROUTES);

  await app.register(healthRoutes(deps, VERSION, auth));
  // Only sign-in and sign-out set cookies: the plugin (and the onSend hook it adds) lives in their scope, not
  // on every request. Cookies are parsed only where a session can be used (see http/auth.ts).
  await app.register(async (scope) => {
    await scope.register(cookie, { hook: false });
    await scope.register(authRoutes(auth, deps.config.publicUrl.startsWith('https:')));
  });
  await app.register(keysRoutes(deps, auth));
  await app.register(projectsRoutes(deps, auth));
  const publicAnswers = new PublicAnswers();
  await app.register(productsRoutes(deps, publicAnswers));
  await app.register(uploadsRoutes(deps));
  const intake = new BeaconIntake(deps);
  await app.register(analyticsRoutes(deps, intake));
  await app.register(experimentsRoutes(deps));
  await app.register(assetsRoutes(deps));
  await app.register(reviewRoutes(deps));
  await app.register(exportRoutes(deps));
  await app.register(webhooksRoutes(deps));
  await app.register(filesRoutes(deps));
  await app.register(embedRoutes(deps));
  await app.register(embedProductRoutes(deps));
  await app.register(dashboardApiRoutes(deps));
  await app.register(captureMatRoutes());
  await app.register(dashboardWebRoutes());
  openLanes(app, deps, frontDoor, { auth, requestId, publicAnswers, intake, accessLog });
  return app;
}
