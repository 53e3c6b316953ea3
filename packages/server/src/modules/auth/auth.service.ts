import type { Deps } from '../../deps.js';
import type { Executor } from '../../db.js';
import { AppError } from '../../core/errors.js';
import { newId, randomToken } from '../../platform/ids.js';
import { keyByHash, keyUsed, orgIdsOfKey } from '../keys/index.js';
import {
  deleteSessionByHash,
  insertSession,
  membershipsOf,
  projectForKey,
  rolesFrom,
  sessionByHash,
  updatePasswordHash,
  userByEmail,
} from './auth.repo.js';
import { hashPassword, tokenHash, verifyPassword } from './passwords.js';
import { effectiveScopes, type Principal, type Scope } from '../../core/principal.js';

const SESSION_DAYS = 14;
/** How long a resolved key is trusted without a database read; revocation in this process clears it at once. */
const CACHE_MS = 5_000;
const LAST_USED_RESOLUTION_MS = 60_000;

type Cached = { principal: Principal | null; expires: number };

/**
 * A publishable key is public (it is in every page of the shop), so its resolution is kept under the key
 * itself and the storefront's requests skip a SHA-256 each. A secret key is kept under its hash only, so
 * no raw secret lives on in memory. A hash (64 hex digits) never starts with `pk_`.
 */
const cacheKey = (token: string) => (token.startsWith('pk_') ? token : tokenHash(token));

export class Authenticator {
  private cache = new Map<string, Cached>();
  private lastUsedWritten = new Map<string, number>();
  // A password check against a fixed hash keeps unknown-email logins as slow as wrong-password ones.
  // Made at the first sign-in, not at start: each hash costs 128 MiB and a few hundred ms.
  private dummyHash: Promise<string> | null = null;

  constructor(private deps: Pick<Deps, 'database' | 'clock' | 'logger' | 'config' | 'rateLimiter'>) {}

  /**
   * The key's resolution if this process made it less than CACHE_MS ago: a principal, null (unknown or
   * revoked), or undefined when it must be read. Synchronous, so a cached key needs no promise.
   */
  cachedApiKey(token: string): Principal | null | undefined {
    const hit = this.cache.get(cacheKey(token));
    return hit && hit.expires > Date.now() ? hit.principal : undefined;
  }

  /** Resolves an API key; null when unknown or revoked. */
  async fromApiKey(token: string): Promise<Principal | null> {
    if (!/^(sk|pk)_[A-Za-z0-9_-]{16,128}$/.test(token)) return null;
    const cached = this.cachedApiKey(token);
    if (cached !== undefined) return cached;
    const now = Date.now();
    const principal = await this.loadKey(tokenHash(token));
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(cacheKey(token), { principal, expires: now + CACHE_MS });
    if (principal?.keyId) this.noteUse(principal.keyId, now);
    return principal;
  }

  async fromSession(token: string): Promise<Principal | null> {
    const db = this.deps.database.db;
    const session = await sessionByHash(db, tokenHash(token), this.deps.clock.now().toISOString());
    if (!session) return null;
    const memberships = await membershipsOf(db, session.user_id);
    return {
      kind: 'session',
      keyId: null,
      userId: session.user_id,
      orgIds: memberships.map((m) => m.org_id),
      roles: rolesFrom(memberships),
      scopes: null,
      projectId: null,
      allowedDomains: [],
    };
  }

  /** Forget cached resolutions, e.g. after a revoke or a project's allowed_domains change. */
  invalidate(): void {
    this.cache.clear();
  }

  async login(email: string, password: string, clientIp: string): Promise<{ token: string; userId: string; expiresAt: Date }> {
    const db = this.deps.database.db;
    const normalised = email.trim().toLowerCase();
    await this.throttleLogin(normalised, clientIp);
    const user = await userByEmail(db, normalised);
    this.dummyHash ??= hashPassword(randomToken(8));
    const { ok, needsRehash } = await verifyPassword(password, user?.password_hash ?? (await this.dummyHash));
    if (!user || !ok) throw new AppError('unauthenticated', 'Email or password is wrong.');
    if (needsRehash) await updatePasswordHash(db, user.id, await hashPassword(password));
    const token = randomToken(32);
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_DAYS * 86_400_000);
    await insertSession(db, {
      id: newId('sess'),
      token_hash: tokenHash(token),
      user_id: user.id,
      created_at: now.toISOString(),
      expires_at: expiresAt.toISOString(),
    });
    return { token, userId: user.id, expiresAt };
  }

  /**
   * Guessing is limited per account (whatever the address) and per address (whatever the account), in
   * the shared rate-limit store, before any password is checked. Every attempt counts: a throttle that
   * counted only failures would tell an attacker which guess was right.
   */
  private async throttleLogin(email: string, clientIp: string): Promise<void> {
    const limits = this.deps.config.rateLimits;
    if (!limits.enabled) return;
    const perSecond = limits.loginPerSecond;
    const [byEmail, byIp] = await Promise.all([
      this.deps.rateLimiter.take(`login:email:${email}`, { perSecond, burst: limits.loginBurst }),
      this.deps.rateLimiter.take(`login:ip:${clientIp}`, { perSecond: perSecond * 3, burst: limits.loginBurst * 3 }),
    ]);
    const denied = [byEmail, byIp].filter((d) => !d.allowed);
    if (!denied.length) return;
    const retry = Math.max(1, ...denied.map((d) => Math.ceil(d.retryAfterSeconds)));
    throw new AppError('rate_limited', 'Too many sign-in attempts; retry after the delay in Retry-After.', { retry_after_seconds: retry }, {
      'Retry-After': String(retry),
    });
  }

  async logout(token: string): Promise<void> {
    await deleteSessionByHash(this.deps.database.db, tokenHash(token));
  }

  private async loadKey(hash: string): Promise<Principal | null> {
    const db = this.deps.database.db;
    const key = await keyByHash(db, hash);
    if (!key || key.revoked_at) return null;
    const stored = JSON.parse(key.scopes) as Scope[];
    if (key.type === 'publishable') {
      const project = key.project_id ? await projectForKey(db, key.project_id) : undefined;
      if (!project) return null;
      return {
        kind: 'publishable_key',
        keyId: key.id,
        userId: null,
        orgIds: [project.org_id],
        roles: {},
        scopes: effectiveScopes('publishable', stored),
        projectId: project.id,
        allowedDomains: JSON.parse(project.allowed_domains) as string[],
      };
    }
    const orgIds = await orgIdsOfKey(db, key.id);
    const roles = key.created_by ? rolesFrom(await membershipsOf(db, key.created_by)) : {};
    return {
      kind: 'secret_key',
      keyId: key.id,
      userId: key.created_by,
      orgIds,
      roles: Object.fromEntries(orgIds.filter((o) => roles[o]).map((o) => [o, roles[o]])),
      scopes: effectiveScopes('secret', stored),
      projectId: null,
      allowedDomains: [],
    };
  }

  /** last_used_at is informational: written at most once a minute per key, off the request path. */
  private noteUse(keyId: string, now: number) {
    const last = this.lastUsedWritten.get(keyId) ?? 0;
    if (now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastUsedWritten.set(keyId, now);
    keyUsed(this.deps.database.db, keyId, new Date(now).toISOString()).catch((err) =>
      this.deps.logger.warn({ err }, 'could not record key use'),
    );
  }
}

// What other modules ask of users (through index.ts).

/** The user with this (normalised) email, or undefined. */
export const findUserByEmail = (db: Executor, email: string) => userByEmail(db, email);
/** A user's memberships: organization and role. */
export const membershipsOfUser = (db: Executor, userId: string) => membershipsOf(db, userId);
