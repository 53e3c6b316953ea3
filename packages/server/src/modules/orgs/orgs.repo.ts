import type { Executor } from '../../db.js';
import type { Role } from '../../core/principal.js';

export async function insertOrganization(
  db: Executor,
  row: { id: string; name: string; plan: string; active_product_cap: number | null; created_at: string },
) {
  await db.insertInto('organizations').values({ ...row, credit_balance: 0 }).execute();
}

export async function insertUser(db: Executor, row: { id: string; email: string; password_hash: string | null; created_at: string }) {
  await db.insertInto('users').values(row).execute();
}

export async function setPassword(db: Executor, userId: string, hash: string) {
  await db.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).execute();
}

export async function upsertMembership(db: Executor, orgId: string, userId: string, role: Role, at: string) {
  await db
    .insertInto('memberships')
    .values({ org_id: orgId, user_id: userId, role, created_at: at })
    .onConflict((oc) => oc.columns(['org_id', 'user_id']).doUpdateSet({ role }))
    .execute();
}

export async function organizationCount(db: Executor): Promise<number> {
  const row = await db.selectFrom('organizations').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

interface LedgerEntry {
  id: string;
  orgId: string;
  reason: string;
  ref: string | null;
  at: string;
}

/** The ledger row of a change of balance, written in the statement's transaction right after the balance moved. */
async function insertLedgerEntry(db: Executor, entry: LedgerEntry, delta: number, balanceAfter: number) {
  await db
    .insertInto('credit_ledger')
    .values({ id: entry.id, org_id: entry.orgId, delta, balance_after: balanceAfter, reason: entry.reason, ref: entry.ref, created_at: entry.at })
    .execute();
}

/** Credits are a ledger: the balance column is the running sum, changed only together with a ledger row. */
export async function addCredits(db: Executor, entry: { id: string; orgId: string; delta: number; reason: string; ref: string | null; at: string }) {
  const updated = await db
    .updateTable('organizations')
    .set((eb) => ({ credit_balance: eb('credit_balance', '+', entry.delta) }))
    .where('id', '=', entry.orgId)
    .returning('credit_balance')
    .executeTakeFirstOrThrow();
  await insertLedgerEntry(db, entry, entry.delta, updated.credit_balance);
  return updated.credit_balance;
}

export async function findOrganization(db: Executor, id: string) {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Debits only when the balance covers it, in one statement, so concurrent commits can never take the
 * balance below zero. Returns the new balance, or null when the balance is short.
 */
export async function debitCredits(db: Executor, entry: { id: string; orgId: string; amount: number; reason: string; ref: string; at: string }) {
  const updated = await db
    .updateTable('organizations')
    .set((eb) => ({ credit_balance: eb('credit_balance', '-', entry.amount) }))
    .where('id', '=', entry.orgId)
    .where('credit_balance', '>=', entry.amount)
    .returning('credit_balance')
    .executeTakeFirst();
  if (!updated) return null;
  await insertLedgerEntry(db, entry, -entry.amount, updated.credit_balance);
  return updated.credit_balance;
}

export async function ledgerOf(db: Executor, orgId: string, q: { limit: number; offset: number }) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('credit_ledger')
      .select(['id', 'delta', 'balance_after', 'reason', 'ref', 'created_at'])
      .where('org_id', '=', orgId)
      .orderBy('id', 'desc')
      .limit(q.limit)
      .offset(q.offset)
      .execute(),
    db.selectFrom('credit_ledger').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
