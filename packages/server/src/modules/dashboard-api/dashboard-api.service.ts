import type { Deps } from '../../deps.js';
import { AppError, forbidden, notFound } from '../../core/errors.js';
import { inTransaction, lockOrganization } from '../../platform/db/index.js';
import { canManage, type Principal, type Role } from '../../core/principal.js';
import { addMember, ledgerPage } from '../orgs/index.js';
import { findUserByEmail } from '../auth/index.js';
import { membersOf, membership, organizationsOf, ownerCount, removeMembership, setRole, userById } from './dashboard-api.repo.js';

type DashDeps = Pick<Deps, 'database' | 'clock'>;
interface PageArgs {
  limit: number;
  offset: number;
}

/** Organization management is the dashboard's, not the API's: an API key never reaches it. */
export function sessionUser(principal: Principal): string {
  if (principal.kind !== 'session' || !principal.userId) {
    throw forbidden('scope', 'These routes take a signed-in dashboard session, not an API key.');
  }
  return principal.userId;
}

/** Another organization's id is 404, exactly as on /v1. */
function reachable(principal: Principal, orgId: string): void {
  sessionUser(principal);
  if (!principal.orgIds.includes(orgId)) throw notFound('organization');
}

function manager(principal: Principal, orgId: string): void {
  reachable(principal, orgId);
  if (!canManage(principal, orgId)) throw forbidden('role', 'Only owners and admins manage members.');
}

/** Owners alone hand out or take away ownership, so an admin cannot promote themselves over an owner. */
function mayTouchOwnership(principal: Principal, orgId: string, roles: (Role | undefined)[]): void {
  if (roles.includes('owner') && principal.roles[orgId] !== 'owner') {
    throw forbidden('role', 'Only an owner can grant, change or remove the owner role.');
  }
}

export async function me(deps: DashDeps, principal: Principal) {
  const userId = sessionUser(principal);
  const user = await userById(deps.database.db, userId);
  if (!user) throw new AppError('unauthenticated', 'The session has expired; sign in again.');
  const orgs = await organizationsOf(deps.database.db, userId);
  return {
    object: 'me' as const,
    user: { id: user.id, email: user.email },
    organizations: orgs.map((o) => ({
      id: o.id,
      name: o.name,
      role: o.role,
      plan: o.plan,
      credit_balance: Number(o.credit_balance),
    })),
  };
}

export async function listMembers(deps: DashDeps, principal: Principal, orgId: string, q: PageArgs) {
  reachable(principal, orgId);
  return membersOf(deps.database.db, orgId, q);
}

export async function addOrgMember(
  deps: DashDeps,
  principal: Principal,
  orgId: string,
  input: { email: string; role: Role; password?: string },
) {
  manager(principal, orgId);
  mayTouchOwnership(principal, orgId, [input.role]);
  const email = input.email.trim().toLowerCase();
  const existing = await findUserByEmail(deps.database.db, email);
  if (existing && (await membership(deps.database.db, orgId, existing.id))) {
    throw new AppError('conflict', 'This person is already a member; change their role instead.', { reason: 'member_exists' });
  }
  // Never sets another person's password: a given password only applies to a brand-new user.
  const { user_id } = await addMember(deps, { orgId, email, role: input.role, password: existing ? undefined : input.password });
  return { user_id, email, role: input.role };
}

async function changeMembership(
  deps: DashDeps,
  principal: Principal,
  orgId: string,
  userId: string,
  next: Role | null,
): Promise<void> {
  manager(principal, orgId);
  return inTransaction(deps.database.db, async (trx) => {
    await lockOrganization(trx, orgId);
    const current = await membership(trx, orgId, userId);
    if (!current) throw notFound('member');
    mayTouchOwnership(principal, orgId, [current.role, next ?? undefined]);
    if (current.role === 'owner' && next !== 'owner' && (await ownerCount(trx, orgId)) <= 1) {
      throw new AppError('conflict', 'An organization keeps at least one owner.', { reason: 'last_owner' });
    }
    if (next) await setRole(trx, orgId, userId, next);
    else await removeMembership(trx, orgId, userId);
  });
}

export async function changeRole(deps: DashDeps, principal: Principal, orgId: string, userId: string, role: Role) {
  await changeMembership(deps, principal, orgId, userId, role);
  return { user_id: userId, role };
}

export const removeMember = (deps: DashDeps, principal: Principal, orgId: string, userId: string) =>
  changeMembership(deps, principal, orgId, userId, null);

export async function credits(deps: DashDeps, principal: Principal, orgId: string, q: PageArgs) {
  reachable(principal, orgId);
  const orgs = await organizationsOf(deps.database.db, principal.userId!);
  const org = orgs.find((o) => o.id === orgId);
  if (!org) throw notFound('organization');
  const ledger = await ledgerPage(deps.database.db, orgId, q);
  return { balance: Number(org.credit_balance), plan: org.plan, ledger };
}
