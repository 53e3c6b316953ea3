import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from '../../platform/db/migrations.js';

/**
 * Raw beacon events plus two rollups kept in the same transaction, so GET /v1/usage reads only
 * rollups. Daily rows answer day granularity and whole days of by_product, so a 30-day report
 * reads about 24 times fewer rows than hourly ones would need.
 */
export function analyticsMigration(dialect: SchemaDialect): Migration {
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
        // One row per (org, subject, bucket, internal) with a count per event type. The key leads with
        // the subject, so each read is one contiguous range: a product's buckets, the organization's
        // totals (subject ''), or, driven from the products of an organization, the by_product sums.
        await db.schema
          .createTable(table)
          .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
          .addColumn('subject_id', 'text', (c) => c.notNull())
          .addColumn('bucket_start', 'text', (c) => c.notNull())
          .addColumn('internal', 'integer', (c) => c.notNull())
          .addColumn('view', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('ar_enter', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('ar_session_ended', 'integer', (c) => c.notNull().defaultTo(0))
          .addPrimaryKeyConstraint(`${table}_pk`, ['org_id', 'subject_id', 'bucket_start', 'internal'])
          .$call((table) => dialect.clusteredOnKey(table))
          .execute();
      }
    },
  };
}
