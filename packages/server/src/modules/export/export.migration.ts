import type { Kysely, Migration } from 'kysely';

/** Queued exports: the selection they froze, their progress and the mail that announces them. */
export const exportsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('exports')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('selection_hash', 'text', (c) => c.notNull())
      .addColumn('selection', 'text', (c) => c.notNull())
      .addColumn('notify_email', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('total_images', 'integer', (c) => c.notNull())
      .addColumn('pending_images', 'integer', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('mailed_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('exports_org_selection').on('exports').columns(['org_id', 'selection_hash']).execute();
  },
};
