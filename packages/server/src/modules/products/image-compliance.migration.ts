import type { Kysely, Migration } from 'kysely';

/**
 * An image's compliance with its own preset, as last measured on its finished file (DESIGN section
 * 16), and whether it passed, kept apart so that the products list can filter on it with an index.
 * Both are null until the image is finished with its current settings.
 */
export const imageComplianceMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('images').addColumn('compliance', 'text').execute();
    await db.schema.alterTable('images').addColumn('channel_ready', 'integer').execute();
    await db.schema.createIndex('images_channel_ready').on('images').columns(['org_id', 'channel_ready']).execute();
  },
};
