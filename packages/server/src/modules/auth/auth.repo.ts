import type { Executor } from '../../db.js';
import type { Role } from '../../core/principal.js';

export async function membershipsOf(db: Executor, userId: string) {
  return db.selectFrom('memberships').select(['org_id', 'role']).where('user_id', '=', userId).orderBy('org_id').execute();
}

export async function userByEmail(db: Executor, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function updatePasswordHash(db: Executor, userId: string, hash: string) {
  await db.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).execute();
}

export async function sessionByHash(db: Executor, hash: string, now: string) {
  return db
    .selectFrom('sessions')
    .select(['id', 'user_id'])
    .where('token_hash', '=', hash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export async function insertSession(
  db: Executor,
  row: { id: string; token_hash: string; user_id: string; created_at: string; expires_at: string },
) {
  await db.insertInto('sessions').values(row).execute();
}

export async function deleteSessionByHash(db: Executor, hash: string) {
  await db.deleteFrom('sessions').where('token_hash', '=', hash).execute();
}

export async function projectForKey(db: Executor, projectId: string) {
  return db.selectFrom('projects').select(['id', 'org_id', 'allowed_domains']).where('id', '=', projectId).executeTakeFirst();
}

export function rolesFrom(rows: { org_id: string; role: string }[]): Record<string, Role> {
  return Object.fromEntries(rows.map((r) => [r.org_id, r.role as Role]));
}
