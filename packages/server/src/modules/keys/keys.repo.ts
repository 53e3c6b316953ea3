import type { Executor } from '../../db.js';

export interface ApiKeyRecord {
  id: string;
  type: 'secret' | 'publishable';
  name: string | null;
  prefix: string;
  scopes: string[];
  orgIds: string[];
  projectId: string | null;
  createdBy: string | null;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface KeyRow {
  id: string;
  type: 'secret' | 'publishable';
  name: string | null;
  display_prefix: string;
  scopes: string;
  project_id: string | null;
  created_by: string | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export function toKeyRecord(row: KeyRow, orgIds: string[]): ApiKeyRecord {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    prefix: row.display_prefix,
    scopes: JSON.parse(row.scopes) as string[],
    orgIds,
    projectId: row.project_id,
    createdBy: row.created_by,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

const keyColumns = [
  'api_keys.id',
  'api_keys.type',
  'api_keys.name',
  'api_keys.display_prefix',
  'api_keys.scopes',
  'api_keys.project_id',
  'api_keys.created_by',
  'api_keys.created_at',
  'api_keys.revoked_at',
  'api_keys.last_used_at',
] as const;

export async function insertKey(
  db: Executor,
  row: KeyRow & { key_hash: string },
  orgIds: string[],
): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
  if (orgIds.length) {
    await db.insertInto('api_key_orgs').values(orgIds.map((orgId) => ({ key_id: row.id, org_id: orgId }))).execute();
  }
}

export async function findKeyByHash(db: Executor, hash: string) {
  return db.selectFrom('api_keys').select(keyColumns).where('key_hash', '=', hash).executeTakeFirst();
}

export async function keyOrgIds(db: Executor, keyId: string): Promise<string[]> {
  const rows = await db.selectFrom('api_key_orgs').select('org_id').where('key_id', '=', keyId).orderBy('org_id').execute();
  return rows.map((r) => r.org_id);
}

/**
 * Keys whose reach includes one of orgIds: secret keys through api_key_orgs,
 * publishable keys through their project's organization. Newest first.
 */
export async function listKeys(db: Executor, orgIds: string[], page: { limit: number; offset: number; id?: string }) {
  if (orgIds.length === 0) return { rows: [] as (KeyRow & { org_ids: string[] })[], total: 0 };
  let base = db
    .selectFrom('api_keys')
    .leftJoin('projects', 'projects.id', 'api_keys.project_id')
    .where((eb) =>
      eb.or([
        eb('projects.org_id', 'in', orgIds),
        eb('api_keys.id', 'in', eb.selectFrom('api_key_orgs').select('key_id').where('org_id', 'in', orgIds)),
      ]),
    );
  if (page.id) base = base.where('api_keys.id', '=', page.id);
  const [{ total }] = await base.select((eb) => eb.fn.countAll<number>().as('total')).execute();
  const rows = await base
    .select([...keyColumns, 'projects.org_id as project_org_id'])
    .orderBy('api_keys.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const secretIds = rows.filter((r) => r.type === 'secret').map((r) => r.id);
  const links = secretIds.length
    ? await db.selectFrom('api_key_orgs').select(['key_id', 'org_id']).where('key_id', 'in', secretIds).execute()
    : [];
  return {
    total: Number(total),
    rows: rows.map((r) => ({
      ...r,
      org_ids:
        r.type === 'secret'
          ? links.filter((l) => l.key_id === r.id).map((l) => l.org_id).sort()
          : [r.project_org_id as string],
    })),
  };
}

export async function revokeKey(db: Executor, id: string, at: string) {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

export async function touchKey(db: Executor, id: string, at: string) {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
