import type { Kysely, Migration } from 'kysely';

/**
 * The used quote tokens (a resume token redeems once). Released inside `0002_products`, which runs it after
 * the products' own tables.
 */
export const quoteUsesMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('quote_uses')
      .addColumn('nonce', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('product_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
};

/** Measured step costs (seconds per unit of work, and how many jobs measured them), one row per step. */
export const stepCostsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('step_costs')
      .addColumn('step', 'text', (c) => c.primaryKey())
      .addColumn('seconds_per_unit', 'double precision', (c) => c.notNull())
      .addColumn('samples', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};
