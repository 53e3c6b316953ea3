/** A step's measured cost (seconds per photo or per job) on this installation; see modules/quotes/step-costs.ts. */
export interface StepCostsTable {
  step: string;
  seconds_per_unit: number;
  samples: number;
  updated_at: string;
}

/** This module's table, created by `quotes.migration.ts`; `src/db.ts` adds it to the app's `DB`. */
export interface QuotesTables {
  step_costs: StepCostsTable;
}
