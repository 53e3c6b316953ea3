import type { Executor } from '../../db.js';
import type { Deps } from '../../deps.js';
import { AppError, notFound, validationFailed } from '../../core/errors.js';
import type { Effect } from '../../http/idempotency.js';
import { readOrgs, writeOrg } from '../../core/reach.js';
import { inTransaction, lockOrganization } from '../../platform/db/index.js';
import { newId } from '../../platform/ids.js';
import { ARMS, armOutcomes, forgetExposures } from '../analytics/index.js';
import type { Principal } from '../../core/principal.js';
import { emitEvent } from '../events/index.js';
import {
  deleteExperimentRow,
  findExperiment,
  insertExperiment,
  knownProducts,
  listExperiments,
  runningExperiments,
  updateExperimentRow,
} from './experiments.repo.js';
import { experimentJson, resultsJson } from './experiments.json.js';
import { relativeLift, twoProportionPValue, wilsonInterval } from './experiments.stats.js';
import type { ArmWeights, ExperimentRecord, ExperimentResults } from './experiments.types.js';

export interface CreateExperimentInput {
  name: string;
  product_ids?: string[];
  arms: ArmWeights;
  org_id?: string;
}

/** A product shows one arm at a time: two running experiments may share no product (null covers them all). */
function overlap(a: string[] | null, b: string[] | null): string[] | null {
  if (a === null) return b ?? [];
  if (b === null) return a;
  const set = new Set(b);
  const shared = a.filter((id) => set.has(id));
  return shared.length ? shared : null;
}

export async function createExperiment(
  deps: Deps,
  principal: Principal,
  input: CreateExperimentInput,
  effect?: Effect<ExperimentRecord>,
): Promise<ExperimentRecord> {
  const orgId = writeOrg(principal, input.org_id);
  const total = ARMS.reduce((s, arm) => s + input.arms[arm], 0);
  if (Math.abs(total - 1) > 1e-9) throw validationFailed([{ path: '/arms', message: `the arms' weights must add up to 1 (they add up to ${total})` }]);
  const productIds = input.product_ids ? [...new Set(input.product_ids)] : null;
  if (productIds) {
    const known = await knownProducts(deps.database.db, orgId, productIds);
    const unknown = productIds.filter((id) => !known.has(id));
    if (unknown.length) throw validationFailed(unknown.map((id) => ({ path: `/product_ids/${input.product_ids!.indexOf(id)}`, message: `no product ${id} in this organization` })));
  }
  const at = deps.clock.now().toISOString();
  const record: ExperimentRecord = {
    id: newId('expt'),
    orgId,
    name: input.name,
    status: 'running',
    arms: { '3d': input.arms['3d'], poster: input.arms.poster },
    productIds,
    createdAt: at,
    updatedAt: at,
    stoppedAt: null,
  };
  return inTransaction(deps.database.db, async (trx) => {
    // One writer per organization at a time, so two creates cannot both miss each other's products.
    await lockOrganization(trx, orgId);
    for (const running of await runningExperiments(trx, orgId)) {
      const shared = overlap(productIds, running.productIds);
      if (shared) {
        throw new AppError('conflict', `Experiment ${running.id} is already running on ${shared.length ? 'these products' : 'every product'}; stop it first.`, {
          reason: 'experiment_running',
          experiment_id: running.id,
          product_ids: shared,
        });
      }
    }
    await insertExperiment(trx, record);
    await effect?.(trx, record);
    return record;
  });
}

async function experimentOr404(deps: Deps, principal: Principal, id: string, orgId?: string): Promise<ExperimentRecord> {
  const reach = orgId !== undefined ? readOrgs(principal, { org_id: orgId }) : principal.orgIds;
  const found = await findExperiment(deps.database.db, id, reach);
  if (!found) throw notFound('experiment');
  return found;
}

export const getExperiment = experimentOr404;

export async function listExperimentsFor(
  deps: Deps,
  principal: Principal,
  q: { org_id?: string; scope?: 'all'; status?: 'running' | 'stopped'; limit: number; offset: number },
) {
  return listExperiments(deps.database.db, readOrgs(principal, q), q);
}

export async function renameExperiment(deps: Deps, principal: Principal, id: string, name: string, orgId?: string): Promise<ExperimentRecord> {
  const found = await experimentOr404(deps, principal, id, orgId);
  const at = deps.clock.now().toISOString();
  await updateExperimentRow(deps.database.db, id, { name, updated_at: at });
  return { ...found, name, updatedAt: at };
}

/**
 * Ends the experiment: the element shows every viewer the 3D viewer again, conversions after now no longer count,
 * and `experiment.completed` carries the final results, in the same transaction as the stop.
 */
export async function stopExperiment(deps: Deps, principal: Principal, id: string, orgId?: string, effect?: Effect<ExperimentRecord>): Promise<ExperimentRecord> {
  const found = await experimentOr404(deps, principal, id, orgId);
  const at = deps.clock.now().toISOString();
  return inTransaction(deps.database.db, async (trx) => {
    await lockOrganization(trx, found.orgId);
    const current = await findExperiment(trx, id, [found.orgId]);
    if (!current) throw notFound('experiment');
    if (current.status === 'stopped') throw new AppError('conflict', 'This experiment is already stopped.', { reason: 'experiment_stopped' });
    await updateExperimentRow(trx, id, { status: 'stopped', stopped_at: at, updated_at: at });
    const stopped: ExperimentRecord = { ...current, status: 'stopped', stoppedAt: at, updatedAt: at };
    const results = await computeResults(trx, stopped, at);
    await emitEvent(trx, stopped.orgId, 'experiment.completed', { ...experimentJson(stopped), results: resultsJson(results) }, at);
    await effect?.(trx, stopped);
    return stopped;
  });
}

export async function deleteExperiment(deps: Deps, principal: Principal, id: string, orgId?: string): Promise<void> {
  const found = await experimentOr404(deps, principal, id, orgId);
  await inTransaction(deps.database.db, async (trx) => {
    await deleteExperimentRow(trx, id);
    await forgetExposures(trx, found.orgId, id);
  });
}

export async function experimentResults(deps: Deps, principal: Principal, id: string, orgId?: string): Promise<ExperimentResults> {
  const found = await experimentOr404(deps, principal, id, orgId);
  return computeResults(deps.database.db, found, deps.clock.now().toISOString());
}

/** Per arm from raw events and viewer ids, then the comparison of 3d (arm 1) with poster (arm 2). */
async function computeResults(db: Executor, e: ExperimentRecord, at: string): Promise<ExperimentResults> {
  const outcomes = await armOutcomes(db, e.orgId, e.id, e.createdAt, e.stoppedAt);
  const arms = ARMS.map((arm) => {
    const o = outcomes.find((x) => x.arm === arm) ?? { viewers: 0, converters: 0, value: 0 };
    return {
      arm,
      weight: e.arms[arm],
      viewers: o.viewers,
      converters: o.converters,
      conversionRate: o.viewers ? o.converters / o.viewers : null,
      interval: wilsonInterval(o.converters, o.viewers),
      value: o.value,
    };
  });
  const [a, b] = arms as [(typeof arms)[0], (typeof arms)[0]];
  const lift = relativeLift(a.converters, a.viewers, b.converters, b.viewers);
  const test = twoProportionPValue(a.converters, a.viewers, b.converters, b.viewers);
  const verdict = lift && lift.lower > 0 ? '3d_better' : lift && lift.upper < 0 ? 'poster_better' : null;
  return { experimentId: e.id, status: e.status, computedAt: at, arms, lift, pValue: test?.pValue ?? null, verdict };
}

/** For the embed: the running experiment that covers this product, if any (at most one can). */
export async function runningExperimentFor(deps: Pick<Deps, 'database'>, orgId: string, productId: string): Promise<ExperimentRecord | null> {
  const running = await runningExperiments(deps.database.db, orgId);
  return running.find((e) => e.productIds === null || e.productIds.includes(productId)) ?? null;
}
