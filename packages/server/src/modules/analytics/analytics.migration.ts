import type { Kysely, Migration } from 'kysely';

type Dialect = 'sqlite' | 'postgres';

/**
 * Raw beacon events plus two rollups kept in the same transaction, so GET /v1/usage reads only
 * rollups. Hourly rows answer hour granularity (at most 31 days); daily rows answer day
 * granularity and by_product, so a 30-day report reads about 24 times fewer rows.
 */
export function analyticsMigration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      // No secondary index: usage never reads this table, and every index slows the hot write path.
      await db.schema
        .createTable('beacon_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
        .addColumn('subject_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('internal', 'integer', (c) => c.notNull())
        .addColumn('occurred_at', 'text', (c) => c.notNull())
        .addColumn('received_at', 'text', (c) => c.notNull())
        .addColumn('viewer_id', 'text')
        .addColumn('duration_ms', 'integer')
        .addColumn('clamped', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();

      for (const table of ['usage_hourly', 'usage_daily']) {
        // The primary key leads with (org_id, bucket_start): the range scan of buckets and totals.
        await db.schema
          .createTable(table)
          .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
          .addColumn('bucket_start', 'text', (c) => c.notNull())
          .addColumn('subject_id', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('internal', 'integer', (c) => c.notNull())
          .addColumn('count', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint(`${table}_pk`, ['org_id', 'bucket_start', 'subject_id', 'type', 'internal'])
          .execute();
        // One product's report (product_id=…) without touching the rest of the organization.
        await db.schema
          .createIndex(`${table}_subject`)
          .on(table)
          .columns(['org_id', 'subject_id', 'bucket_start'])
          .execute();
      }
    },
  };
}
