import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How long shops' visitors and any CDN in front may reuse an answer, and serve it stale while refreshing. */
export interface CachePolicy {
  maxAgeSeconds: number;
  staleWhileRevalidateSeconds: number;
}

/** Storefront reads: a change (unpublish, new model, new settings) reaches every page within a minute. */
export const STOREFRONT_CACHE: CachePolicy = { maxAgeSeconds: 60, staleWhileRevalidateSeconds: 300 };

/** A strong validator: the same bytes always give the same tag, on every process. */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** RFC 9110: If-None-Match is a list of tags (weak ones compare weakly), or `*`. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((raw) => {
    const tag = raw.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/**
 * Sends a JSON body that browsers and shared caches may keep: a strong ETag (304 when the caller has it),
 * Cache-Control with stale-while-revalidate, and Vary on what decides the answer (the origin is checked
 * against the key's project, the key decides the organization).
 */
export function sendCacheableJson(request: FastifyRequest, reply: FastifyReply, body: string, policy: CachePolicy = STOREFRONT_CACHE): FastifyReply {
  return sendTaggedJson(request, reply, tagged(body), policy);
}

/** An answer kept with its tag and its bytes, so a hot route hashes and encodes it once, not per request. */
export interface TaggedBody {
  body: string;
  etag: string;
  bytes: Buffer;
}

export function tagged(body: string): TaggedBody {
  const bytes = Buffer.from(body);
  return { body, etag: strongEtag(bytes), bytes };
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const VARY = 'Origin, Authorization';

/** The bytes go out as they are (the content type is set, so fastify neither serialises nor re-encodes them). */
export function sendTaggedJson(request: FastifyRequest, reply: FastifyReply, answer: TaggedBody, policy: CachePolicy = STOREFRONT_CACHE): FastifyReply {
  reply.header('etag', answer.etag);
  reply.header('cache-control', cacheControl(policy));
  reply.header('vary', VARY);
  if (etagMatches(request.headers['if-none-match'], answer.etag)) return reply.status(304).send();
  return reply.type(JSON_TYPE).send(answer.bytes);
}

const cacheControls = new Map<CachePolicy, string>();
export function cacheControl(policy: CachePolicy): string {
  let value = cacheControls.get(policy);
  if (!value) cacheControls.set(policy, (value = `public, max-age=${policy.maxAgeSeconds}, stale-while-revalidate=${policy.staleWhileRevalidateSeconds}`));
  return value;
}
