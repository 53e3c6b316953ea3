import type { Deps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { inTransaction } from '../../platform/db/index.js';
import { newId } from '../../platform/ids.js';
import { ledgerOf } from '../dashboard-api/dashboard-api.repo.js';
import { addCredits, findOrganization } from './orgs.repo.js';

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
