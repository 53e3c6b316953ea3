import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import type { Principal } from '../core/principal.js';
import { isUniqueViolation } from '../platform/db/index.js';
import type { DB, Executor } from '../db.js';
import { AppError } from '../core/errors.js';

const TTL_MS = 24 * 3600_000;
const JSON_TYPE = 'application/json; charset=utf-8';

/** What a request with an Idempotency-Key carries from the preHandler to its service and onSend. */
export interface IdempotencyContext {
  scope: string;
  key: string;
  hash: string;
  /** who asked, with the roles they hold now: only the same principal, with the same reach, gets a replay */
  principal: string;
  /** the record was written inside the effect's transaction; onSend has nothing left to do */
  recorded: boolean;
  /** this answer is a replay */
  replayed: boolean;
  /** the stored record for (scope, key), if any */
  find(): Promise<(Row & { created_at: string }) | undefined>;
}

/**
 * Called by a service inside the transaction that makes its effect, with the effect's result. It writes
 * the idempotency record in that transaction, so the record exists exactly when the effect does: a crash
 * can neither keep an effect without its record (a retry would repeat it) nor the reverse. Two requests
 * racing with one key both reach the insert; the unique (scope, key) makes the second roll back.
 */
export type Effect<T> = (trx: Transaction<DB>, result: T) => Promise<void>;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: IdempotencyContext | null;
  }
}

type Row = { principal: string | null; request_hash: string; status_code: number | null; response_headers: string | null; response_body: string | null };

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

/** A key is its own principal; a session is its user. The roles are part of it: a demoted user is someone else. */
export function principalIdentity(p: Principal): string {
  const who = p.keyId ? `key:${p.keyId}` : `user:${p.userId}`;
  const roles = Object.keys(p.roles)
    .sort()
    .map((o) => `${o}=${p.roles[o]}`)
    .join(',');
  return `${who}|${roles}`;
}

/** Key material and webhook secrets are shown once, in the first answer; a stored replay keeps the record only. */
const SECRET_FIELDS: Record<string, RegExp> = { key: /^(sk|pk)_/, secret: /^whsec_/ };

export function redactSecrets(body: string): string {
  if (!body.startsWith('{')) return body;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return body;
  }
  let redacted = false;
  for (const [field, pattern] of Object.entries(SECRET_FIELDS)) {
    const v = parsed[field];
    if (typeof v === 'string' && pattern.test(v)) {
      delete parsed[field];
      redacted = true;
    }
  }
  return redacted ? JSON.stringify({ ...parsed, secret_redacted: true }) : body;
}

async function insertRecord(db: Executor, ctx: IdempotencyContext, status: number, headers: Record<string, string>, body: string, at: string) {
  await db
    .insertInto('idempotency_keys')
    .values({
      scope: ctx.scope,
      key: ctx.key,
      request_hash: ctx.hash,
      principal: ctx.principal,
      state: 'done',
      status_code: status,
      response_headers: JSON.stringify(headers),
      response_body: redactSecrets(body),
      locked_at: at,
      created_at: at,
    })
    .execute();
}

/** The stored answer, or 409 for anyone but the first request's principal with the same request. */
function replay(reply: FastifyReply, ctx: IdempotencyContext, row: Row) {
  if (row.principal !== ctx.principal) {
    throw new AppError('idempotency_conflict', 'This Idempotency-Key was used by another caller.', { reason: 'idempotency_key_reused' });
  }
  if (row.request_hash !== ctx.hash) {
    throw new AppError('idempotency_conflict', 'This Idempotency-Key was used with a different request.', { reason: 'idempotency_key_reused' });
  }
  ctx.replayed = true;
  const headers = JSON.parse(row.response_headers ?? '{}') as Record<string, string>;
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  reply.header('Idempotent-Replayed', 'true');
  return reply.status(row.status_code ?? 200).send(row.response_body ?? '');
}

/**
 * The Effect a handler passes to its service: renders the answer the route is about to send (with the
 * route's own serializer, so the replay is byte for byte the first answer) and records it in `trx`.
 * Undefined when the request carries no Idempotency-Key.
 */
export function idempotentEffect<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: { status: number; body: (result: T) => unknown; location?: (result: T) => string },
): Effect<T> | undefined {
  const ctx = request.idempotency;
  if (!ctx) return undefined;
  return async (trx, result) => {
    const serialize = (reply.getSerializationFunction(String(answer.status)) as ((v: unknown) => string) | undefined) ?? JSON.stringify;
    const headers: Record<string, string> = { 'content-type': JSON_TYPE };
    if (answer.location) headers.location = answer.location(result);
    await insertRecord(trx, ctx, answer.status, headers, serialize(answer.body(result)), new Date().toISOString());
    ctx.recorded = true;
  };
}

/**
 * Idempotency-Key on any POST replays the first successful answer for 24 h, to the same principal only.
 * The replay is looked up in a preHandler, so authentication, the route's scope and origin checks and
 * body validation have all run for the replaying request first.
 */
export function registerIdempotency(app: FastifyInstance, deps: Deps) {
  const db = deps.database.db;
  let inserts = 0;
  app.decorateRequest('idempotency', null);

  const find = (scope: string, key: string) =>
    db
      .selectFrom('idempotency_keys')
      .select(['principal', 'request_hash', 'status_code', 'response_headers', 'response_body', 'created_at'])
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('state', '=', 'done')
      .executeTakeFirst();

  const sweep = async () => {
    if (++inserts % 100 !== 0) return;
    await db.deleteFrom('idempotency_keys').where('created_at', '<', new Date(deps.clock.now().getTime() - TTL_MS).toISOString()).execute();
  };

  // Only POST routes get the two hooks, and a request without an Idempotency-Key (every beacon) passes
  // both synchronously: no promise is made unless there is a record to look up or write.
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().includes('POST')) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), preHandlerHook];
    route.onSend = [...[route.onSend ?? []].flat(), onSendHook];
  });

  function preHandlerHook(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) {
    if (request.method !== 'POST' || request.headers['idempotency-key'] === undefined || !request.principal) return done();
    return preHandler(request, reply);
  }

  function onSendHook(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) {
    const ctx = request.idempotency;
    if (!ctx || ctx.replayed) return done(null, payload);
    onSend(request, reply, payload).then((p) => done(null, p), done);
  }

  const preHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
      throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 255 characters.');
    }
    const scope = scopeOf(request);
    const ctx: IdempotencyContext = {
      scope,
      key,
      hash: requestHash(request),
      principal: principalIdentity(request.principal),
      recorded: false,
      replayed: false,
      find: () => find(scope, key),
    };
    request.idempotency = ctx;
    const row = await ctx.find();
    if (!row) return;
    if (Date.parse(row.created_at) >= deps.clock.now().getTime() - TTL_MS) return replay(reply, ctx, row);
    await db.deleteFrom('idempotency_keys').where('scope', '=', ctx.scope).where('key', '=', key).where('created_at', '=', row.created_at).execute();
  };

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const ctx = request.idempotency;
    if (!ctx || ctx.replayed) return payload;
    if (ctx.recorded) {
      await sweep();
      return payload;
    }
    // Errors are not kept (they made no effect; a retry runs again), nor bodies we cannot keep (streams).
    if (reply.statusCode >= 300 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
    // A POST without an effect (a quote), or one whose effect is not one transaction: kept after the fact.
    const headers: Record<string, string> = {};
    for (const h of ['content-type', 'location']) {
      const v = reply.getHeader(h);
      if (v !== undefined) headers[h] = String(v);
    }
    try {
      await insertRecord(db, ctx, reply.statusCode, headers, payload.toString(), deps.clock.now().toISOString());
      await sweep();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // A twin with the same key answered first: give the same answer.
      const row = await ctx.find();
      if (row && row.principal === ctx.principal && row.request_hash === ctx.hash) {
        reply.status(row.status_code ?? 200).header('Idempotent-Replayed', 'true');
        return row.response_body ?? '';
      }
    }
    return payload;
  };
}

/**
 * For the error handler: a request that failed because a twin with the same key made the effect first
 * (its record insert collided, or the effect it found already done) answers with the twin's answer.
 * Returns false when there is nothing to replay and the error stands.
 */
export async function replayAfterError(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const ctx = request.idempotency;
  if (!ctx || ctx.replayed || ctx.recorded) return false;
  const row = await ctx.find();
  if (!row) return false;
  await replay(reply, ctx, row);
  return true;
}
