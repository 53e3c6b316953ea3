import type { Kysely, Migration } from 'kysely';

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
