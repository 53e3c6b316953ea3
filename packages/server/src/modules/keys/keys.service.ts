import type { Deps } from '../../deps.js';
import { AppError, forbidden, notFound, validationFailed } from '../../core/errors.js';
import { readOrgs, writeOrg } from '../../core/reach.js';
import type { Effect } from '../../http/idempotency.js';
import { inTransaction } from '../../platform/db/index.js';
import type { Executor } from '../../db.js';
import { newId, randomToken, tokenHash } from '../../platform/ids.js';
import { canManage, normaliseScopes, type CredentialCache, type Principal, type Scope } from '../../core/principal.js';
import { projectInOrgs } from '../projects/index.js';
import { findKeyByHash, insertKey, keyOrgIds, listKeys, touchKey, revokeKey as revokeKeyRow, toKeyRecord, type ApiKeyRecord } from './keys.repo.js';

export interface NewKey {
  type: 'secret' | 'publishable';
  orgIds: string[];
  projectId?: string;
  scopes: Scope[];
  name: string | null;
  createdBy: string | null;
}

/** Writes a key and returns its material, which exists only in this return value. */
export async function createKeyRecord(db: Executor, at: string, input: NewKey): Promise<{ record: ApiKeyRecord; key: string }> {
  const material = randomToken(24);
  const key = `${input.type === 'secret' ? 'sk' : 'pk'}_${material}`;
  const row = {
    id: newId('key'),
    type: input.type,
    name: input.name,
    display_prefix: key.slice(0, 9),
    key_hash: tokenHash(key),
    scopes: JSON.stringify(input.scopes),
    project_id: input.projectId ?? null,
    created_by: input.createdBy,
    created_at: at,
    revoked_at: null,
    last_used_at: null,
  };
  // Publishable keys reach their project's organization; only secret keys carry an explicit org list.
  await insertKey(db, row, input.type === 'secret' ? input.orgIds : []);
  return { record: toKeyRecord(row, input.orgIds), key };
}

export interface CreateKeyBody {
  type?: 'secret' | 'publishable';
  name?: string;
  scopes?: string[];
  org_id?: string;
  org_ids?: string[];
  project_id?: string;
}

export async function createKey(deps: Deps, principal: Principal, body: CreateKeyBody, effect?: Effect<{ record: ApiKeyRecord; key: string }>) {
  const type = body.type ?? 'secret';
  const { scopes, unknown } = normaliseScopes(body.scopes ?? []);
  if (unknown.length) {
    throw validationFailed(unknown.map((s) => ({ path: 'body.scopes', message: `unknown scope "${s}"` })));
  }
  let orgIds: string[];
  let projectId: string | undefined;
  if (type === 'publishable') {
    if (!body.project_id) throw validationFailed([{ path: 'body.project_id', message: 'is required for a publishable key' }]);
    if (body.org_ids) throw validationFailed([{ path: 'body.org_ids', message: 'a publishable key belongs to its project\'s organization' }]);
    const project = await projectInOrgs(deps.database.db, body.project_id, principal.orgIds);
    if (!project) throw notFound('project');
    orgIds = [project.org_id];
    projectId = project.id;
  } else {
    if (body.project_id) throw validationFailed([{ path: 'body.project_id', message: 'only publishable keys belong to a project' }]);
    orgIds = body.org_ids?.length ? [...new Set(body.org_ids)].sort() : [writeOrg(principal, body.org_id)];
    for (const orgId of orgIds) if (!principal.orgIds.includes(orgId)) throw notFound('organization');
  }
  for (const orgId of orgIds) {
    if (!canManage(principal, orgId)) throw forbidden('role', 'Only owners and admins of the organization may create keys.', { org_id: orgId });
  }
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    const created = await createKeyRecord(trx, at, { type, orgIds, projectId, scopes, name: body.name ?? null, createdBy: principal.userId });
    await effect?.(trx, created);
    return created;
  });
}

export async function listApiKeys(deps: Deps, principal: Principal, q: { org_id?: string; scope?: 'all'; limit: number; offset: number }) {
  const { rows, total } = await listKeys(deps.database.db, readOrgs(principal, q), q);
  return { data: rows.map((r) => toKeyRecord(r, r.org_ids)), total };
}

export async function revokeApiKey(deps: Deps, auth: CredentialCache, principal: Principal, id: string): Promise<ApiKeyRecord> {
  const { rows } = await listKeys(deps.database.db, principal.orgIds, { id, limit: 1, offset: 0 });
  const row = rows[0];
  if (!row) throw notFound('API key');
  for (const orgId of row.org_ids) {
    if (!canManage(principal, orgId)) throw forbidden('role', 'Only owners and admins of the organization may revoke keys.', { org_id: orgId });
  }
  if (row.id === principal.keyId) throw new AppError('conflict', 'A key cannot revoke itself.', { reason: 'self_revoke' });
  const at = deps.clock.now().toISOString();
  await revokeKeyRow(deps.database.db, id, at);
  auth.invalidate();
  return toKeyRecord({ ...row, revoked_at: row.revoked_at ?? at }, row.org_ids);
}

// What authentication and the demo ask of keys (through index.ts).

/** The key a presented secret hashes to, revoked or not. */
export const keyByHash = (db: Executor, hash: string) => findKeyByHash(db, hash);
/** The organizations a key reaches. */
export const orgIdsOfKey = (db: Executor, keyId: string) => keyOrgIds(db, keyId);
/** Records a key's use (its last_used_at). */
export const keyUsed = (db: Executor, id: string, at: string) => touchKey(db, id, at);
