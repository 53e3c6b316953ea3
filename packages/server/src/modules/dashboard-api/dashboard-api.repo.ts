import type { Executor } from '../../db.js';
import type { Role } from '../../core/principal.js';

export async function userById(db: Executor, id: string) {
  return db.selectFrom('users').select(['id', 'email']).where('id', '=', id).executeTakeFirst();
}

export async function organizationsOf(db: Executor, userId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('organizations', 'organizations.id', 'memberships.org_id')
    .select(['organizations.id', 'organizations.name', 'organizations.plan', 'organizations.credit_balance', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .orderBy('organizations.id')
    .execute();
}

export async function membersOf(db: Executor, orgId: string, q: { limit: number; offset: number }) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select(['users.id as user_id', 'users.email', 'memberships.role', 'memberships.created_at'])
      .where('memberships.org_id', '=', orgId)
      .orderBy('memberships.created_at', 'desc')
      .orderBy('users.id', 'desc')
      .limit(q.limit)
      .offset(q.offset)
      .execute(),
    db.selectFrom('memberships').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function membership(db: Executor, orgId: string, userId: string) {
  return db.selectFrom('memberships').select(['role']).where('org_id', '=', orgId).where('user_id', '=', userId).executeTakeFirst();
}

export async function ownerCount(db: Executor, orgId: string): Promise<number> {
  const row = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setRole(db: Executor, orgId: string, userId: string, role: Role) {
  await db.updateTable('memberships').set({ role }).where('org_id', '=', orgId).where('user_id', '=', userId).execute();
}

export async function removeMembership(db: Executor, orgId: string, userId: string) {
  await db.deleteFrom('memberships').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
}
