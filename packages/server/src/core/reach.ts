import { Type } from '@sinclair/typebox';
import type { Principal } from './principal.js';
import { AppError, notFound } from './errors.js';

/** Query fields every read takes (seed convention 4). */
export const ReachQuery = {
  org_id: Type.Optional(Type.String({ description: 'Organization to read; defaults to the caller\'s only one.' })),
  scope: Type.Optional(Type.Literal('all', { description: '`all` covers every organization the caller reaches.' })),
};

/**
 * Organizations a read covers: the named one (404 if out of reach, never 403), every reached one
 * with scope=all, or the caller's only one; a caller with several must choose (422 org_id_required).
 */
export function readOrgs(principal: Principal, query: { org_id?: string; scope?: 'all' }): string[] {
  if (query.org_id) {
    if (!principal.orgIds.includes(query.org_id)) throw notFound('organization');
    return [query.org_id];
  }
  if (query.scope === 'all') return principal.orgIds;
  return [onlyOrg(principal)];
}

/** The one organization a write names (body or query), or the caller's only one. */
export function writeOrg(principal: Principal, orgId: string | undefined): string {
  if (orgId) {
    if (!principal.orgIds.includes(orgId)) throw notFound('organization');
    return orgId;
  }
  return onlyOrg(principal);
}

function onlyOrg(principal: Principal): string {
  if (principal.orgIds.length === 1) return principal.orgIds[0];
  if (principal.orgIds.length === 0) throw notFound('organization');
  throw new AppError('org_id_required', 'This caller reaches several organizations; name one with org_id (or scope=all on reads).', {
    errors: [{ path: 'query.org_id', message: 'is required when the caller reaches several organizations' }],
    org_ids: principal.orgIds,
  });
}
