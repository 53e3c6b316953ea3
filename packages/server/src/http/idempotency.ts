import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { isUniqueViolation } from '../platform/db/index.js';
import { AppError } from './errors.js';

const TTL_MS = 24 * 3600_000;
/** A started record older than this belongs to a request that died; a retry may take it over. */
const ABANDONED_MS = 60_000;
const WAIT_MS = 30_000;
const REPLAYED_HEADERS = ['content-type', 'location'];

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { scope: string; key: string } | null;
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function requestHash(request: FastifyRequest): string {
  const body = Buffer.isBuffer(request.body) ? createHash('sha256').update(request.body).digest('hex') : canonical(request.body);
  return createHash('sha256').update(`${request.method} ${request.url}\n${body}`).digest('hex');
}

/** Keys are scoped per organization, as the write names it; a caller with several and no org_id gets its own scope. */
function scopeOf(request: FastifyRequest): string {
  const p = request.principal;
  const named = (request.body as { org_id?: unknown } | null)?.org_id ?? (request.query as { org_id?: unknown })?.org_id;
  if (typeof named === 'string' && p.orgIds.includes(named)) return `org:${named}`;
  if (p.orgIds.length === 1) return `org:${p.orgIds[0]}`;
  return `principal:${p.keyId ?? p.userId}`;
}

async function replay(reply: FastifyReply, row: { status_code: number | null; response_headers: string | null; response_body: string | null }) {
  const headers = JSON.parse(row.response_headers ?? '{}') as Record<string, string>;
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  reply.header('Idempotent-Replayed', 'true');
  return reply.status(row.status_code ?? 200).send(row.response_body ?? '');
}

/**
 * Idempotency-Key on any POST replays the first response for 24 h. Concurrent requests with one key
 * wait for the first to finish and replay it, so 100 parallel retries make one effect.
 */
export function registerIdempotency(app: FastifyInstance, deps: Deps) {
  const db = deps.database.db;
  let inserts = 0;
  app.decorateRequest('idempotency', null);

  // Only POST routes get the two hooks: every other request would otherwise pay two async hook
  // calls for nothing (a measurable share of a cached public read).
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().includes('POST')) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), preHandler];
    route.onSend = [...[route.onSend ?? []].flat(), onSend];
  });

  const preHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || key === undefined || !request.principal) return;
    if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
      throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 255 characters.');
    }
    const scope = scopeOf(request);
    const hash = requestHash(request);
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
      const now = deps.clock.now();
      try {
        await db
          .insertInto('idempotency_keys')
          .values({ scope, key, request_hash: hash, state: 'started', locked_at: now.toISOString(), created_at: now.toISOString() })
          .execute();
        request.idempotency = { scope, key };
        if (++inserts % 100 === 0) {
          await db.deleteFrom('idempotency_keys').where('created_at', '<', new Date(now.getTime() - TTL_MS).toISOString()).execute();
        }
        return;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
      const row = await db.selectFrom('idempotency_keys').selectAll().where('scope', '=', scope).where('key', '=', key).executeTakeFirst();
      if (!row) continue;
      if (Date.parse(row.created_at) < now.getTime() - TTL_MS) {
        await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key).where('created_at', '=', row.created_at).execute();
        continue;
      }
      if (row.request_hash !== hash) {
        throw new AppError('idempotency_conflict', 'This Idempotency-Key was used with a different request.', {
          reason: 'idempotency_key_reused',
        });
      }
      if (row.state === 'done') return replay(reply, row);
      if (Date.parse(row.locked_at) < now.getTime() - ABANDONED_MS) {
        const taken = await db
          .updateTable('idempotency_keys')
          .set({ locked_at: now.toISOString() })
          .where('scope', '=', scope)
          .where('key', '=', key)
          .where('locked_at', '=', row.locked_at)
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) === 1) {
          request.idempotency = { scope, key };
          return;
        }
      }
      await sleep(25 + Math.random() * 25);
    }
    throw new AppError('conflict', 'A request with this Idempotency-Key is still in progress.', { reason: 'idempotency_in_progress' });
  };

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const idem = request.idempotency;
    if (!idem) return payload;
    request.idempotency = null;
    const where = db.deleteFrom('idempotency_keys').where('scope', '=', idem.scope).where('key', '=', idem.key);
    // A failure of ours, or a body we cannot keep (a stream), must not be replayed: the client may retry.
    if (reply.statusCode >= 500 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
      await where.execute();
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const h of REPLAYED_HEADERS) {
      const v = reply.getHeader(h);
      if (v !== undefined) headers[h] = String(v);
    }
    await db
      .updateTable('idempotency_keys')
      .set({ state: 'done', status_code: reply.statusCode, response_headers: JSON.stringify(headers), response_body: payload.toString() })
      .where('scope', '=', idem.scope)
      .where('key', '=', idem.key)
      .execute();
    return payload;
  };
}
