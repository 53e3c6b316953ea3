import type { Kysely, Migration } from 'kysely';

/** Raw uploads, private to their organization until a product uses one. */
export const uploadsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('uploads')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('path', 'text', (c) => c.notNull().unique())
      .addColumn('storage_key', 'text', (c) => c.notNull())
      .addColumn('bytes', 'integer', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
};

/**
 * Uploads may be models as well as images (`kind`), and an upload a product has used (`used_at`) is
 * kept; one never used is swept after the retention period. The index serves the per-organization
 * quota sum and the sweep.
 */
export const uploadsPrivateMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('uploads').addColumn('kind', 'text', (c) => c.notNull().defaultTo('image')).execute();
    await db.schema.alterTable('uploads').addColumn('used_at', 'text').execute();
    await db.schema.createIndex('uploads_org_created').on('uploads').columns(['org_id', 'created_at']).execute();
    await db.schema.createIndex('uploads_created').on('uploads').columns(['created_at']).execute();
  },
};

/**
 * The product that first used an upload: once that product is deleted the upload is unused again (its
 * bytes were copied at ingestion), so it stops counting against the quota after the retention period.
 */
export const uploadsUsedByMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('uploads').addColumn('used_by', 'text').execute();
  },
};
