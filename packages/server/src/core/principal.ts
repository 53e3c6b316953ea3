export const SCOPES = ['products:read', 'products:write', 'usage:read', 'webhooks:manage', 'beacon:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** The seed's scope table spells it `webhooks:manageWebhook`; its note says `webhooks:manage`. We store the latter. */
export const SCOPE_ALIASES: Record<string, Scope> = { 'webhooks:manageWebhook': 'webhooks:manage' };

export const PUBLISHABLE_CAP: readonly Scope[] = ['products:read', 'beacon:write'];

export type Role = 'owner' | 'admin' | 'member';

export interface Principal {
  kind: 'secret_key' | 'publishable_key' | 'session';
  keyId: string | null;
  userId: string | null;
  /** organizations this caller reaches, sorted */
  orgIds: string[];
  /** role per organization: the session user's, or for a secret key its creator's */
  roles: Record<string, Role>;
  /** the scopes that apply; null means full access for the key type */
  scopes: Scope[] | null;
  projectId: string | null;
  /** publishable keys only: origins the project allows */
  allowedDomains: string[];
}

export function normaliseScopes(input: string[]): { scopes: Scope[]; unknown: string[] } {
  const scopes = new Set<Scope>();
  const unknown: string[] = [];
  for (const raw of input) {
    const s = (SCOPE_ALIASES[raw] ?? raw) as Scope;
    if ((SCOPES as readonly string[]).includes(s)) scopes.add(s);
    else unknown.push(raw);
  }
  return { scopes: [...scopes].sort(), unknown };
}

/**
 * Rules 1–3 of the seed: empty = full for the type; a list restricts; publishable keys are capped
 * at products:read + beacon:write whatever is stored.
 */
export function effectiveScopes(type: 'secret' | 'publishable', stored: Scope[]): Scope[] | null {
  if (type === 'publishable') {
    return stored.length ? stored.filter((s) => PUBLISHABLE_CAP.includes(s)) : [...PUBLISHABLE_CAP];
  }
  return stored.length ? stored : null;
}

export function canManage(principal: Principal, orgId: string): boolean {
  const role = principal.roles[orgId];
  return role === 'owner' || role === 'admin';
}

/** What authentication caches about keys and projects: a change to either tells it to forget. */
export interface CredentialCache {
  invalidate(): void;
}

/**
 * What the HTTP layer asks of authentication (modules/auth's Authenticator): who a key or a session is. A key
 * found in the cache is answered without a promise: `undefined` when it is not cached, `null` when it is known bad.
 */
export interface PrincipalSource {
  cachedApiKey(token: string): Principal | null | undefined;
  fromApiKey(token: string): Promise<Principal | null>;
  fromSession(token: string): Promise<Principal | null>;
}
