import type { FastifyInstance } from 'fastify';
import type { Deps } from './deps.js';
import type { PrincipalSource } from './core/principal.js';
import { envelope } from './core/errors.js';
import { rateRule, type AuthRule } from './http/auth.js';
import { clientAddress, type FrontDoor, type LaneTokens } from './http/front-door.js';
import { compileBodyValidator } from './http/validation.js';
import { BeaconBodySchema } from './modules/analytics/analytics.routes.js';
import { beaconLane } from './modules/analytics/beacon-lane.js';
import type { BeaconIntake } from './modules/analytics/index.js';
import { publicReadLane, type PublicAnswers } from './modules/products/public-read-lane.js';

/** Headers of an injected answer that belong to its own (absent) connection, not to the one it is copied onto. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date']);

/**
 * The storefront's two requests, answered before routing when their key is cached (http/front-door.ts): the
 * product read, when its answer is cached too, and the beacon. Not with access lines on (they are the
 * router's), nor with a token bucket shared through Redis (a round trip per request).
 */
export function openLanes(
  app: FastifyInstance,
  deps: Deps,
  frontDoor: FrontDoor,
  parts: { auth: PrincipalSource; requestId: () => string; publicAnswers: PublicAnswers; intake: BeaconIntake; accessLog: boolean },
) {
  const limits = deps.config.rateLimits;
  const limiter = deps.rateLimiter;
  const local = limiter.takeNow && limiter.giveBack;
  if (parts.accessLog || (limits.enabled && !local)) return;
  const bucket = (rule: AuthRule): LaneTokens | null => {
    if (!limits.enabled) return null;
    const r = rateRule(limits, rule);
    return { take: (name) => limiter.takeNow!(name, r), giveBack: (name) => limiter.giveBack!(name, r) };
  };
  const cachedApiKey = (token: string) => parts.auth.cachedApiKey(token);

  frontDoor.replay = (req, res, body) => {
    app
      .inject({ method: req.method as 'POST', url: req.url ?? '/', headers: req.headers, payload: body, remoteAddress: clientAddress(req) })
      .then(
        (answer) => {
          const headers: Record<string, string | string[] | number> = {};
          for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !CONNECTION_HEADERS.has(name)) headers[name] = value;
          res.writeHead(answer.statusCode, headers).end(answer.rawPayload);
        },
        (err: unknown) => {
          deps.logger.error({ err }, 'replaying a request through the router failed');
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(envelope('internal_error', 'The API failed to handle the request.', null, parts.requestId()));
        },
      );
  };

  frontDoor.add(
    publicReadLane({ cachedApiKey, answers: parts.publicAnswers, requestId: parts.requestId, tokens: bucket({ scope: 'products:read' }) }),
  );
  frontDoor.add(
    beaconLane({
      cachedApiKey,
      intake: parts.intake,
      requestId: parts.requestId,
      tokens: bucket({ scope: 'beacon:write', bucket: 'beacon' }),
      validate: compileBodyValidator(BeaconBodySchema),
      bodyLimit: deps.config.bodyLimitBytes,
      replay: frontDoor.replay,
    }),
  );
}
