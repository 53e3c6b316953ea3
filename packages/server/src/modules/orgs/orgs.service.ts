import type { Deps } from '../../deps.js';
import type { Executor } from '../../db.js';
import { inTransaction } from '../../platform/db/index.js';
import { newId } from '../../platform/ids.js';
import { findUserByEmail } from '../auth/index.js';
import { hashPassword } from '../auth/index.js';
import type { Role } from '../../core/principal.js';
import { createKeyRecord } from '../keys/index.js';
import { addProject } from '../projects/index.js';
import { addCredits, insertOrganization, insertUser, organizationCount, setPassword, upsertMembership } from './orgs.repo.js';

export const PLANS = ['none', 'trial', 'active', 'trial_used', 'payment_failed'] as const;
export type Plan = (typeof PLANS)[number];

export interface BootstrapInput {
  org: string;
  email: string;
  password?: string;
  plan?: Plan;
  credits?: number;
  activeProductCap?: number | null;
  allowedDomains?: string[];
}

export interface BootstrapResult {
  org_id: string;
  user_id: string;
  secret_key: string;
  project_id: string;
  publishable_key: string;
}

/**
 * Organization management is outside /v1, so the CLI makes the first data: an organization, its owner
 * (a new user, or the existing one with that email), a project and one key of each type.
 */
export async function bootstrap(deps: Pick<Deps, 'database' | 'clock'>, input: BootstrapInput): Promise<BootstrapResult> {
  const at = deps.clock.now().toISOString();
  const email = input.email.trim().toLowerCase();
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return inTransaction(deps.database.db, async (trx) => {
    const orgId = newId('org');
    await insertOrganization(trx, {
      id: orgId,
      name: input.org,
      plan: input.plan ?? 'active',
      active_product_cap: input.activeProductCap ?? null,
      created_at: at,
    });
    const user = await upsertMember(trx, { orgId, email, passwordHash, role: 'owner', at });
    if (input.credits) {
      await addCredits(trx, { id: newId('led'), orgId, delta: input.credits, reason: 'grant', ref: 'bootstrap', at });
    }
    const projectId = newId('proj');
    await addProject(trx, {
      id: projectId,
      org_id: orgId,
      name: 'Default project',
      allowed_domains: JSON.stringify(input.allowedDomains ?? []),
      created_at: at,
      updated_at: at,
    });
    const secret = await createKeyRecord(trx, at, { type: 'secret', orgIds: [orgId], scopes: [], name: 'Bootstrap secret key', createdBy: user.id });
    const publishable = await createKeyRecord(trx, at, {
      type: 'publishable',
      orgIds: [orgId],
      projectId,
      scopes: [],
      name: 'Bootstrap publishable key',
      createdBy: user.id,
    });
    return { org_id: orgId, user_id: user.id, secret_key: secret.key, project_id: projectId, publishable_key: publishable.key };
  });
}

/** Adds (or re-roles) a user in an organization. Used by the CLI and by tests of role rules. */
export async function addMember(
  deps: Pick<Deps, 'database' | 'clock'>,
  input: { orgId: string; email: string; password?: string; role: Role },
): Promise<{ user_id: string }> {
  const at = deps.clock.now().toISOString();
  const email = input.email.trim().toLowerCase();
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return inTransaction(deps.database.db, async (trx) => {
    const user = await upsertMember(trx, { orgId: input.orgId, email, passwordHash, role: input.role, at });
    return { user_id: user.id };
  });
}

/**
 * Makes the user with this email a member of the organization with this role: created when new, its password
 * set when one is given, its role replaced when it is a member already.
 */
async function upsertMember(trx: Executor, m: { orgId: string; email: string; passwordHash: string | null; role: Role; at: string }) {
  let user = await findUserByEmail(trx, m.email);
  if (!user) {
    user = { id: newId('usr'), email: m.email, password_hash: m.passwordHash, created_at: m.at };
    await insertUser(trx, user);
  } else if (m.passwordHash) {
    await setPassword(trx, user.id, m.passwordHash);
  }
  await upsertMembership(trx, m.orgId, user.id, m.role, m.at);
  return user;
}

/** How many organizations exist: none yet means the installation still needs its bootstrap. */
export const countOrganizations = (db: Executor) => organizationCount(db);
