import type { Kysely, Migration } from 'kysely';

/** Experiments (section 18). The index serves the embed's question, "is this organization running one?". */
export const experimentsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('experiments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('arms', 'text', (c) => c.notNull())
      .addColumn('product_ids', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('stopped_at', 'text')
      .execute();
    await db.schema.createIndex('experiments_org_status').on('experiments').columns(['org_id', 'status', 'id']).execute();
  },
};
