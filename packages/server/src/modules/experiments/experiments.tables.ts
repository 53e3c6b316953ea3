/** One row per experiment; `arms` and `product_ids` are JSON text (product_ids null: every product of the organization). */
export interface ExperimentsTable {
  id: string;
  org_id: string;
  name: string;
  status: 'running' | 'stopped';
  arms: string;
  product_ids: string | null;
  created_at: string;
  updated_at: string;
  stopped_at: string | null;
}

/** This module's tables, created by `experiments.migration.ts`; `src/db.ts` adds them to the app's `DB`. */
export interface ExperimentsTables {
  experiments: ExperimentsTable;
}
