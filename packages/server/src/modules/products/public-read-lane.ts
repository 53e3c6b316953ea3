import type { IncomingMessage, ServerResponse } from 'node:http';
import { rateBucket, type AuthRule } from '../../http/auth.js';
import { cacheControl, etagMatches, JSON_TYPE, STOREFRONT_CACHE, VARY, type TaggedBody } from '../../http/conditional.js';
import { browserHeaders, cachedBrowserCaller, clientAddress, type Lane, type LaneTokens } from '../../http/front-door.js';
import type { RateDecision } from '../../platform/ratelimit/index.js';
import type { Principal } from '../../core/principal.js';

/**
 * The public read is what every storefront page view makes, and its answer stays the same until the
 * product changes, so answers are kept briefly per (organization, id). A change (unpublish, delete,
 * a new model) shows within this time, as a revoked key does within the key cache's 5 s.
 */
export const PUBLIC_CACHE_MS = 2_000;
const PUBLIC_CACHE_MAX = 10_000;

type PublicAnswer = TaggedBody & { expires: number };

/** The organizations a principal reaches, as one map key (a publishable key has one: no string is built). */
export const orgsKey = (principal: Principal): string => (principal.orgIds.length === 1 ? principal.orgIds[0] : principal.orgIds.join(','));

/** Tagged public answers by organizations, then by id, each for PUBLIC_CACHE_MS. */
export class PublicAnswers {
  private byOrgs = new Map<string, Map<string, PublicAnswer>>();
  private count = 0;

  get(orgs: string, id: string): TaggedBody | undefined {
    const hit = this.byOrgs.get(orgs)?.get(id);
    return hit && hit.expires > Date.now() ? hit : undefined;
  }

  set(orgs: string, id: string, answer: TaggedBody): void {
    if (this.count >= PUBLIC_CACHE_MAX) {
      this.byOrgs.clear();
      this.count = 0;
    }
    let byId = this.byOrgs.get(orgs);
    if (!byId) this.byOrgs.set(orgs, (byId = new Map()));
    if (!byId.has(id)) this.count++;
    byId.set(id, { ...answer, expires: Date.now() + PUBLIC_CACHE_MS });
  }
}

export interface PublicReadLaneOptions {
  /** the key cache: a principal, null (refused) or undefined (not resolved in the last 5 s) */
  cachedApiKey(token: string): Principal | null | undefined;
  answers: PublicAnswers;
  /** the same generator the framework names its requests with */
  requestId: () => string;
  /** null when rate limits are off */
  tokens: LaneTokens | null;
}

const PREFIX = '/v1/products/';
const ID = /^[A-Za-z0-9_-]{1,100}$/;
const RULE: AuthRule = { scope: 'products:read', publishable: true };
const CACHE_CONTROL = cacheControl(STOREFRONT_CACHE);

/**
 * `GET /v1/products/{id}` with a publishable key from an allowed origin, answered before routing when the
 * key and the answer are both cached: the same checks as the routed path (key, scope, origin, token bucket)
 * in the same order, the same headers and bytes. Anything else (no cached key or answer, a refused key, a
 * missing or foreign origin, an empty bucket, a query string) goes on to the router, which answers it and,
 * for a good request, fills the caches this lane reads.
 */
export function publicReadLane(opts: PublicReadLaneOptions): Lane {
  const { cachedApiKey, answers, requestId, tokens } = opts;
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'GET') return false;
    const url = req.url;
    if (url === undefined || !url.startsWith(PREFIX)) return false;
    const id = url.slice(PREFIX.length);
    if (!ID.test(id)) return false;
    const caller = cachedBrowserCaller(req.headers, cachedApiKey, 'products:read');
    if (caller === null) return false;
    const { principal, origin } = caller;
    const answer = answers.get(orgsKey(principal), id);
    if (answer === undefined) return false;
    let decision: RateDecision | undefined;
    if (tokens) {
      decision = tokens.take(rateBucket(RULE, principal, clientAddress(req)));
      // Refused: nothing was spent, and the router answers the 429 with its Retry-After.
      if (!decision.allowed) return false;
    }
    const out = browserHeaders(requestId(), origin, VARY, decision);
    out.etag = answer.etag;
    out['cache-control'] = CACHE_CONTROL;
    if (etagMatches(req.headers['if-none-match'], answer.etag)) {
      res.writeHead(304, out);
      res.end();
      return true;
    }
    out['content-type'] = JSON_TYPE;
    out['content-length'] = answer.bytes.length;
    res.writeHead(200, out);
    // As text, node sends it with the headers in one write() instead of a writev() of two buffers: 5–8% more
    // answers per second here. The length above is the encoded one.
    res.end(answer.body);
    return true;
  };
}
