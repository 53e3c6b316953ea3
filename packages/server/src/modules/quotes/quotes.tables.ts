/** A step's measured cost (seconds per photo or per job) on this installation; see modules/quotes/step-costs.ts. */
export interface StepCostsTable {
  step: string;
  seconds_per_unit: number;
  samples: number;
  updated_at: string;
}

/** A redeemed quote token: its nonce, so the token cannot commit twice. */
export interface QuoteUsesTable {
  nonce: string;
  org_id: string;
  product_id: string | null;
  created_at: string;
}

/** This module's tables, created by `quotes.migration.ts`; `src/db.ts` adds it to the app's `DB`. */
export interface QuotesTables {
  step_costs: StepCostsTable;
  quote_uses: QuoteUsesTable;
}
