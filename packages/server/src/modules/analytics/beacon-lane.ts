import type { IncomingMessage, ServerResponse } from 'node:http';
import { rateBucket, type AuthRule } from '../../http/auth.js';
import { JSON_TYPE } from '../../http/conditional.js';
import { browserHeaders, cachedBrowserCaller, clientAddress, type Lane, type LaneTokens, type Replay } from '../../http/front-door.js';
import { illFormedPaths } from '../../http/well-formed.js';
import type { RateDecision } from '../../platform/ratelimit/index.js';
import type { Principal } from '../../core/principal.js';
import type { BeaconBody, BeaconIntake } from './beacon.service.js';

export interface BeaconLaneOptions {
  cachedApiKey(token: string): Principal | null | undefined;
  intake: BeaconIntake;
  requestId: () => string;
  /** null when rate limits are off */
  tokens: LaneTokens | null;
  /** the route's body schema, compiled as the router compiles it */
  validate: (body: unknown) => boolean;
  bodyLimit: number;
  replay: Replay;
}

const PATH = '/v1/beacon';
const RULE: AuthRule = { scope: 'beacon:write', publishable: true, bucket: 'beacon' };
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);

/**
 * `POST /v1/beacon` from a storefront page (a publishable key resolved in the last 5 s, an allowed Origin,
 * a JSON body of known length), taken before routing. The lane answers only the ordinary case, a valid body
 * of events committed through the same group commit as the routed path, with the routed path's 202 headers
 * and bytes. Every other outcome (bad JSON, a failed validation, a lone surrogate, an org_id, an empty token
 * bucket, a failed commit) is replayed through the router with the body it read, so errors have one author.
 * Requests it cannot judge from their headers (no cached key, another content type, no Content-Length, a
 * query string, an Idempotency-Key) go to the router untouched.
 */
export function beaconLane(opts: BeaconLaneOptions): Lane {
  const { cachedApiKey, intake, requestId, tokens, validate, bodyLimit, replay } = opts;
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'POST' || req.url !== PATH) return false;
    const headers = req.headers;
    const type = headers['content-type'];
    if (type === undefined || !JSON_TYPES.has(type.toLowerCase())) return false;
    // A retry under an Idempotency-Key is answered from its record, which the router keeps.
    if (headers['idempotency-key'] !== undefined) return false;
    const length = Number(headers['content-length']);
    if (!(length > 0 && length <= bodyLimit)) return false;
    const caller = cachedBrowserCaller(headers, cachedApiKey, 'beacon:write');
    if (caller === null) return false;

    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    req.on('end', () => {
      const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      const body = parse(raw);
      if (size !== length || body === undefined || !validate(body) || (body as BeaconBody).org_id !== undefined || (mayHoldSurrogate(raw) && illFormedPaths(body).length)) {
        replay(req, res, raw);
        return;
      }
      let decision: RateDecision | undefined;
      const bucket = tokens ? rateBucket(RULE, caller.principal, clientAddress(req)) : '';
      if (tokens) {
        decision = tokens.take(bucket);
        if (!decision.allowed) {
          replay(req, res, raw);
          return;
        }
      }
      intake.recordThen(
        caller.principal,
        body as BeaconBody,
        { userAgent: headers['user-agent'], origin: caller.origin },
        (receipt) => {
          // ASCII, so its length is its byte length; sent as text, node writes it with the headers in one write.
          const text = `{"object":"beacon_receipt","accepted":${receipt.accepted},"clamped":${receipt.clamped}}`;
          const out = browserHeaders(requestId(), caller.origin, 'Origin', decision);
          out['content-type'] = JSON_TYPE;
          out['content-length'] = text.length;
          res.writeHead(202, out);
          res.end(text);
        },
        // Nothing of a refused or failed commit is stored: the router tries again and answers, success or error,
        // spending the token itself.
        () => {
          tokens?.giveBack(bucket);
          replay(req, res, raw);
        },
      );
    });
    // A caller that goes away mid-body gets no answer; nothing was stored.
    req.on('error', () => {});
    return true;
  };
}

const BACKSLASH = 0x5c;

/**
 * UTF-8 cannot encode a lone surrogate (a decoder makes U+FFFD of one), so JSON can only spell it as a `\u`
 * escape: a body without one needs no walk. Most bodies hold no backslash at all, and a byte is found without
 * turning a string into bytes first.
 */
const mayHoldSurrogate = (raw: Buffer) => raw.indexOf(BACKSLASH) !== -1 && raw.indexOf('\\u') !== -1;

function parse(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}
