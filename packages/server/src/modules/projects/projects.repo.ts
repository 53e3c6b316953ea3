import type { Executor } from '../../db.js';

export interface ProjectRow {
  id: string;
  org_id: string;
  name: string;
  allowed_domains: string;
  created_at: string;
  updated_at: string;
}

export interface ProjectRecord {
  id: string;
  orgId: string;
  name: string;
  allowedDomains: string[];
  createdAt: string;
  updatedAt: string;
}

export function toProjectRecord(row: ProjectRow): ProjectRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    allowedDomains: JSON.parse(row.allowed_domains) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function insertProject(db: Executor, row: ProjectRow) {
  await db.insertInto('projects').values(row).execute();
}

export async function findProject(db: Executor, id: string, orgIds: string[]) {
  if (!orgIds.length) return undefined;
  return db.selectFrom('projects').selectAll().where('id', '=', id).where('org_id', 'in', orgIds).executeTakeFirst();
}

export async function listProjects(db: Executor, orgIds: string[], page: { limit: number; offset: number }) {
  if (!orgIds.length) return { rows: [], total: 0 };
  const base = db.selectFrom('projects').where('org_id', 'in', orgIds);
  const [{ total }] = await base.select((eb) => eb.fn.countAll<number>().as('total')).execute();
  const rows = await base.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
  return { rows, total: Number(total) };
}

export async function updateProject(db: Executor, id: string, patch: Partial<Pick<ProjectRow, 'name' | 'allowed_domains' | 'updated_at'>>) {
  await db.updateTable('projects').set(patch).where('id', '=', id).execute();
}

/** Every allowed origin of every project: CORS preflights carry no key, so they are answered from this. */
export async function allAllowedDomains(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('projects').select('allowed_domains').execute();
  return [...new Set(rows.flatMap((r) => JSON.parse(r.allowed_domains) as string[]))];
}
