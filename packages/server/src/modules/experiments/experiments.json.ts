import type { ExperimentRecord, ExperimentResults } from './experiments.types.js';

export function experimentJson(e: ExperimentRecord) {
  return {
    object: 'experiment' as const,
    id: e.id,
    org_id: e.orgId,
    name: e.name,
    status: e.status,
    arms: e.arms,
    product_ids: e.productIds,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
    stopped_at: e.stoppedAt,
  };
}

export function resultsJson(r: ExperimentResults) {
  return {
    object: 'experiment_results' as const,
    experiment_id: r.experimentId,
    status: r.status,
    computed_at: r.computedAt,
    arms: r.arms.map((a) => ({
      arm: a.arm,
      weight: a.weight,
      viewers: a.viewers,
      converters: a.converters,
      conversion_rate: a.conversionRate,
      interval: a.interval,
      value: a.value,
    })),
    lift: r.lift,
    p_value: r.pValue,
    verdict: r.verdict,
  };
}
