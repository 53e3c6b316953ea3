import type { Deps } from '../../deps.js';
import type { Executor } from '../../db.js';
import { forbidden, notFound, validationFailed } from '../../core/errors.js';
import { normaliseOriginEntry } from '../../http/origins.js';
import { readOrgs, writeOrg } from '../../core/reach.js';
import type { Effect } from '../../http/idempotency.js';
import { inTransaction } from '../../platform/db/index.js';
import { newId } from '../../platform/ids.js';
import { canManage, type CredentialCache, type Principal } from '../../core/principal.js';
import { allAllowedDomains, findProject, insertProject, listProjects, toProjectRecord, updateProject, type ProjectRecord } from './projects.repo.js';

function domains(input: string[]): string[] {
  const errors: { path: string; message: string }[] = [];
  const out = new Set<string>();
  input.forEach((raw, i) => {
    const d = normaliseOriginEntry(raw);
    if (!d) errors.push({ path: `body.allowed_domains[${i}]`, message: 'must be an origin like https://shop.example or https://*.example.com' });
    else out.add(d);
  });
  if (errors.length) throw validationFailed(errors);
  return [...out];
}

export async function listProjectsFor(deps: Deps, principal: Principal, q: { org_id?: string; scope?: 'all'; limit: number; offset: number }) {
  const { rows, total } = await listProjects(deps.database.db, readOrgs(principal, q), q);
  return { data: rows.map(toProjectRecord), total };
}

export async function getProject(deps: Deps, principal: Principal, id: string) {
  const row = await findProject(deps.database.db, id, principal.orgIds);
  if (!row) throw notFound('project');
  return toProjectRecord(row);
}

export async function createProject(
  deps: Deps,
  principal: Principal,
  body: { name: string; allowed_domains?: string[]; org_id?: string },
  effect?: Effect<ProjectRecord>,
) {
  const orgId = writeOrg(principal, body.org_id);
  if (!canManage(principal, orgId)) throw forbidden('role', 'Only owners and admins may create projects.');
  const at = deps.clock.now().toISOString();
  const row = {
    id: newId('proj'),
    org_id: orgId,
    name: body.name,
    allowed_domains: JSON.stringify(domains(body.allowed_domains ?? [])),
    created_at: at,
    updated_at: at,
  };
  return inTransaction(deps.database.db, async (trx) => {
    await insertProject(trx, row);
    const record = toProjectRecord(row);
    await effect?.(trx, record);
    return record;
  });
}

export async function patchProject(
  deps: Deps,
  auth: CredentialCache,
  principal: Principal,
  id: string,
  body: { name?: string; allowed_domains?: string[] },
) {
  const row = await findProject(deps.database.db, id, principal.orgIds);
  if (!row) throw notFound('project');
  if (!canManage(principal, row.org_id)) throw forbidden('role', 'Only owners and admins may change projects.');
  const patch = {
    ...(body.name !== undefined && { name: body.name }),
    ...(body.allowed_domains !== undefined && { allowed_domains: JSON.stringify(domains(body.allowed_domains)) }),
    updated_at: deps.clock.now().toISOString(),
  };
  await updateProject(deps.database.db, id, patch);
  // Publishable keys carry the project's origins in the auth cache.
  auth.invalidate();
  return toProjectRecord({ ...row, ...patch });
}

// What other modules ask of projects (through index.ts).

/** A project of one of these organizations, or undefined. */
export const projectInOrgs = (db: Executor, id: string, orgIds: string[]) => findProject(db, id, orgIds);
/** Organizations' projects, a page of them. */
export const projectsOf = (db: Executor, orgIds: string[], page: { limit: number; offset: number }) => listProjects(db, orgIds, page);
/** Adds a project in the caller's transaction (an organization's first, at bootstrap). */
export const addProject = (db: Executor, row: Parameters<typeof insertProject>[1]) => insertProject(db, row);
/** Every origin any project allows, for CORS. */
export const allowedDomains = (db: Executor) => allAllowedDomains(db);
