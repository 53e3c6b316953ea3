import { sql, type Kysely, type Migration } from 'kysely';
import type { SchemaDialect } from '../../platform/db/migrations.js';

/**
 * Webhook endpoints, their deliveries (one per endpoint and event), every attempt of a delivery, and
 * the dispatcher's single state row. `event_seq` copies `events.seq`, which is a bigserial on
 * PostgreSQL, hence bigint there.
 */
export function webhooksMigration(dialect: SchemaDialect): Migration {
  const seq = dialect.seqCopyType;
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('disabled_reason', 'text')
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_expires_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhook_endpoints_org').on('webhook_endpoints').columns(['org_id', 'enabled', 'id']).execute();

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_seq', seq, (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('ordering_key', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('failure_reason', 'text')
        .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text')
        .addColumn('last_response_status', 'integer')
        .addColumn('job_token', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      // One delivery per endpoint and event: a re-scanned event is never fanned out twice. Event first,
      // since the dispatcher looks deliveries up by the events it is reading.
      await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['event_id', 'endpoint_id']).unique().execute();
      // The head of an endpoint's queue for one product: ordering checks and releases.
      await db.schema
        .createIndex('webhook_deliveries_order')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'ordering_key', 'status', 'event_seq'])
        .execute();
      await db.schema.createIndex('webhook_deliveries_list').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();

      await db.schema
        .createTable('webhook_attempts')
        .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
        .addColumn('number', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('duration_ms', 'integer')
        .addColumn('response_status', 'integer')
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('next_attempt_at', 'text')
        .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'number'])
        .execute();

      await db.schema
        .createTable('webhook_dispatch')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('scanned_seq', seq, (c) => c.notNull())
        .addColumn('gaps', 'text', (c) => c.notNull())
        .addColumn('chain_token', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      // Start after the events that already exist: endpoints only receive events newer than themselves.
      const { max } = (await sql<{ max: number | string | null }>`select max(seq) as max from events`.execute(db)).rows[0];
      await db
        .insertInto('webhook_dispatch')
        .values({ id: 'events', scanned_seq: Number(max ?? 0), gaps: '[]', chain_token: null, updated_at: new Date().toISOString() })
        .execute();
    },
  };
}
