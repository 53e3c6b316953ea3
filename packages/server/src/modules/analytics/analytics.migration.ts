import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely';
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
        .$call(beaconEventColumns)
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

/**
 * The columns of a raw beacon event after its key, as both released migrations made them: fixed, since changing it
 * would change what `0003` did. A new column gets a migration of its own.
 */
function beaconEventColumns<T extends string>(table: CreateTableBuilder<T, string>) {
  return table
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('internal', 'integer', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('viewer_id', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('clamped', 'integer', (c) => c.notNull().defaultTo(0));
}

const EVENT_COLUMNS = ['org_id', 'subject_id', 'type', 'internal', 'occurred_at', 'received_at', 'viewer_id', 'duration_ms', 'clamped'];

/**
 * Raw beacon events keyed by an integer the database assigns, instead of a `bev_…` text id made per event. Nothing
 * looks an event up by id, and on SQLite an `integer primary key` is the rowid itself: one b-tree per insert
 * instead of the table's and its text key's, about a fifth less work per stored event under a beacon flood
 * (bench/beacon.mjs). Existing events are copied in their id order, which is the order they were received in.
 */
export function beaconEventRowKeyMigration(dialect: SchemaDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('beacon_events_next')
        .$call((table) => dialect.rowKey(table, 'id'))
        .$call(beaconEventColumns)
        .execute();
      const columns = sql.join(EVENT_COLUMNS.map((c) => sql.id(c)));
      await sql`insert into beacon_events_next (${columns}) select ${columns} from beacon_events order by id`.execute(db);
      await db.schema.dropTable('beacon_events').execute();
      await db.schema.alterTable('beacon_events_next').renameTo('beacon_events').execute();
    },
  };
}

/** The event types 0013 adds to the rollups, each a count column. */
const ENGAGEMENT_TYPES = ['interaction', 'variant_change', 'hotspot_open', 'ar_cta_tap', 'conversion'];

/**
 * Section 18: the new event types as rollup columns, what a conversion and an experiment say on a raw event, and
 * the hourly rollup per device and page origin. Two partial indexes serve experiment results, which read raw
 * events per viewer: only events seen in an experiment and conversions carry them, so a plain view pays nothing.
 */
export function engagementMigration(): Migration {
  return {
    async up(db: Kysely<any>) {
      for (const [column, type] of [
        ['name', 'text'],
        ['value', 'double precision'],
        ['currency', 'text'],
        ['experiment_id', 'text'],
        ['arm', 'text'],
        ['device', 'text'],
        ['referrer', 'text'],
      ] as const) {
        await db.schema.alterTable('beacon_events').addColumn(column, type).execute();
      }
      for (const table of ['usage_hourly', 'usage_daily']) {
        for (const column of ENGAGEMENT_TYPES) {
          await db.schema.alterTable(table).addColumn(column, 'integer', (c) => c.notNull().defaultTo(0)).execute();
        }
      }
      await sql`create index beacon_events_experiment on beacon_events (experiment_id, viewer_id) where experiment_id is not null`.execute(db);
      await sql`create index beacon_events_conversion on beacon_events (org_id, viewer_id) where type = 'conversion'`.execute(db);
    },
  };
}

/** Created apart from the columns above, as it needs the dialect's clustered table. */
export function usageSegmentsMigration(dialect: SchemaDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('usage_segments_hourly')
        .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
        .addColumn('segment', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('bucket_start', 'text', (c) => c.notNull())
        .addColumn('internal', 'integer', (c) => c.notNull())
        .$call((t) => ['view', 'ar_enter', 'ar_session_ended', ...ENGAGEMENT_TYPES].reduce((b, col) => b.addColumn(col, 'integer', (c) => c.notNull().defaultTo(0)), t))
        .addPrimaryKeyConstraint('usage_segments_hourly_pk', ['org_id', 'segment', 'bucket_start', 'value', 'internal'])
        .$call((table) => dialect.clusteredOnKey(table))
        .execute();
    },
  };
}

/**
 * Who saw which arm of an experiment: one row per (experiment, organization, viewer, arm), written with the raw
 * events in the same transaction, instead of an index entry on every raw event an experiment's page sends (about
 * a fifth of a stored event's cost; 20 events of one viewer now add one row, not 20 index entries). Experiment
 * results read their viewers here and their conversions from raw events. Filled from the events already stored.
 */
export function experimentExposuresMigration(dialect: SchemaDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('experiment_exposures')
        .addColumn('experiment_id', 'text', (c) => c.notNull())
        .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
        .addColumn('viewer_id', 'text', (c) => c.notNull())
        .addColumn('arm', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('experiment_exposures_pk', ['experiment_id', 'org_id', 'viewer_id', 'arm'])
        .$call((table) => dialect.clusteredOnKey(table))
        .execute();
      await sql`
        insert into experiment_exposures (experiment_id, org_id, viewer_id, arm)
        select distinct experiment_id, org_id, viewer_id, arm from beacon_events
        where experiment_id is not null and viewer_id is not null and arm is not null and internal = 0`.execute(db);
      await sql`drop index beacon_events_experiment`.execute(db);
    },
  };
}
