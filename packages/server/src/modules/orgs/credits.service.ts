import type { Deps } from '../../deps.js';
import { notFound } from '../../core/errors.js';
import { inTransaction } from '../../platform/db/index.js';
import { newId } from '../../platform/ids.js';
import type { Executor } from '../../db.js';
import { addCredits, debitCredits, findOrganization, ledgerOf } from './orgs.repo.js';

type CreditDeps = Pick<Deps, 'database' | 'clock'>;

/** Credits granted by an operator (`plinth credits --add`): one ledger entry, its reason kept as the entry's ref. */
export async function grantCredits(deps: CreditDeps, input: { orgId: string; amount: number; reason?: string | undefined }) {
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    if (!(await findOrganization(trx, input.orgId))) throw notFound('organization');
    const id = newId('led');
    const balance = await addCredits(trx, { id, orgId: input.orgId, delta: input.amount, reason: 'grant', ref: input.reason?.trim().slice(0, 200) || 'cli', at });
    return { org_id: input.orgId, added: input.amount, balance: Number(balance), ledger_entry_id: id };
  });
}

/** The balance and the newest ledger entries, newest first. */
export async function creditStatement(deps: CreditDeps, orgId: string, entries = 10) {
  const org = await findOrganization(deps.database.db, orgId);
  if (!org) throw notFound('organization');
  const { rows } = await ledgerOf(deps.database.db, orgId, { limit: entries, offset: 0 });
  return {
    org_id: orgId,
    balance: Number(org.credit_balance),
    entries: rows.map((r) => ({ id: r.id, delta: Number(r.delta), balance_after: Number(r.balance_after), reason: r.reason, ref: r.ref, created_at: r.created_at })),
  };
}

/** An organization's plan, cap and balance, as a quote or a commit checks them. */
export const organizationState = (db: Executor, orgId: string) => findOrganization(db, orgId);

/** The ledger page the dashboard shows, newest first. */
export const ledgerPage = (db: Executor, orgId: string, q: { limit: number; offset: number }) => ledgerOf(db, orgId, q);

/**
 * Charges a paid operation in the caller's transaction: only when the balance covers it, so concurrent
 * commits never take it below zero. The new balance, or null when it is short.
 */
export async function chargeCredits(db: Executor, charge: { orgId: string; amount: number; reason: string; ref: string; at: string }) {
  return debitCredits(db, { id: newId('led'), ...charge });
}

/** Gives the credits of an operation that will not happen back, in the caller's transaction. */
export async function refundCredits(db: Executor, refund: { orgId: string; amount: number; ref: string; at: string }) {
  if (refund.amount > 0) await addCredits(db, { id: newId('led'), orgId: refund.orgId, delta: refund.amount, reason: 'refund', ref: refund.ref, at: refund.at });
}
