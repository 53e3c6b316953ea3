import { exportsMigration } from '../../modules/export/export.migration.js';
import { type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { analyticsMigration } from '../../modules/analytics/analytics.migration.js';
import { webhooksMigration } from '../../modules/webhooks/webhooks.migration.js';
import { idempotencyPrincipalMigration } from '../../http/idempotency.migration.js';
import { uploadsPrivateMigration } from '../../modules/uploads/uploads.migration.js';

/**
 * One migration set for both dialects. Types are chosen to mean the same thing in each:
 * text for ids, timestamps and JSON; integer for counts and flags.
 * `seq` columns are the only dialect-specific piece, and they go through `autoIncrement`.
 */
type Dialect = 'sqlite' | 'postgres';

function seqColumn(dialect: Dialect) {
  return dialect === 'postgres' ? ('bigserial' as const) : ('integer' as const);
}

export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_platform': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('organizations')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('plan', 'text', (c) => c.notNull().defaultTo('active'))
          .addColumn('active_product_cap', 'integer')
          .addColumn('credit_balance', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('credit_ledger')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
          .addColumn('delta', 'integer', (c) => c.notNull())
          .addColumn('balance_after', 'integer', (c) => c.notNull())
          .addColumn('reason', 'text', (c) => c.notNull())
          .addColumn('ref', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('credit_ledger_org').on('credit_ledger').columns(['org_id', 'id']).execute();
        await db.schema
          .createTable('users')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('email', 'text', (c) => c.notNull().unique())
          .addColumn('password_hash', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('memberships')
          .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('role', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('memberships_pk', ['org_id', 'user_id'])
          .execute();
        await db.schema.createIndex('memberships_user').on('memberships').column('user_id').execute();
        await db.schema
          .createTable('sessions')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('token_hash', 'text', (c) => c.notNull().unique())
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('projects')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('allowed_domains', 'text', (c) => c.notNull().defaultTo('[]'))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('projects_org').on('projects').columns(['org_id', 'id']).execute();
        await db.schema
          .createTable('api_keys')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('name', 'text')
          .addColumn('display_prefix', 'text', (c) => c.notNull())
          .addColumn('key_hash', 'text', (c) => c.notNull().unique())
          .addColumn('scopes', 'text', (c) => c.notNull().defaultTo('[]'))
          .addColumn('project_id', 'text', (c) => c.references('projects.id').onDelete('cascade'))
          .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('revoked_at', 'text')
          .addColumn('last_used_at', 'text')
          .execute();
        await db.schema
          .createTable('api_key_orgs')
          .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
          .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
          .addPrimaryKeyConstraint('api_key_orgs_pk', ['key_id', 'org_id'])
          .execute();
        await db.schema.createIndex('api_key_orgs_org').on('api_key_orgs').column('org_id').execute();
        await db.schema
          .createTable('idempotency_keys')
          .addColumn('scope', 'text', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('request_hash', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('status_code', 'integer')
          .addColumn('response_headers', 'text')
          .addColumn('response_body', 'text')
          .addColumn('locked_at', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
          .execute();
        await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();
        await db.schema
          .createTable('events')
          .addColumn('seq', seqColumn(dialect), (c) =>
            dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
          )
          .addColumn('id', 'text', (c) => c.notNull().unique())
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('data', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('events_org').on('events').columns(['org_id', 'seq']).execute();
        await db.schema
          .createTable('jobs')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('queue', 'text', (c) => c.notNull())
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('max_attempts', 'integer', (c) => c.notNull())
          .addColumn('run_at', 'text', (c) => c.notNull())
          .addColumn('locked_until', 'text')
          .addColumn('locked_by', 'text')
          .addColumn('last_error', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('jobs_claim').on('jobs').columns(['state', 'run_at']).execute();
      },
    },
    '0002_products': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('products')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
          .addColumn('title', 'text')
          .addColumn('custom_id', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('model_status', 'text', (c) => c.notNull())
          .addColumn('model', 'text')
          .addColumn('thumbnail_key', 'text')
          .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
          .addColumn('source', 'text', (c) => c.notNull())
          .addColumn('generate_model', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('analysis', 'text', (c) => c.notNull().defaultTo('none'))
          .addColumn('images_status', 'text', (c) => c.notNull().defaultTo('none'))
          .addColumn('progress', 'integer')
          .addColumn('step', 'text')
          .addColumn('error', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addColumn('published_at', 'text')
          .execute();
        await db.schema.createIndex('products_org').on('products').columns(['org_id', 'id']).execute();
        await db.schema.createIndex('products_org_status').on('products').columns(['org_id', 'status', 'id']).execute();
        await db.schema.createIndex('products_custom_id').on('products').columns(['org_id', 'custom_id']).unique().execute();
        await db.schema
          .createTable('product_tags')
          .addColumn('product_id', 'text', (c) => c.notNull().references('products.id').onDelete('cascade'))
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('tag', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('product_tags_pk', ['product_id', 'tag'])
          .execute();
        await db.schema.createIndex('product_tags_org_tag').on('product_tags').columns(['org_id', 'tag', 'product_id']).execute();
        await db.schema
          .createTable('images')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('product_id', 'text', (c) => c.notNull().references('products.id').onDelete('cascade'))
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('position', 'integer', (c) => c.notNull())
          .addColumn('origin', 'text', (c) => c.notNull())
          .addColumn('review_status', 'text', (c) => c.notNull())
          .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
          .addColumn('storage_key', 'text')
          .addColumn('content_type', 'text')
          .addColumn('mask_key', 'text')
          .addColumn('thumb_key', 'text')
          .addColumn('width', 'integer')
          .addColumn('height', 'integer')
          .addColumn('bytes', 'integer')
          .addColumn('sha256', 'text')
          .addColumn('analysis', 'text')
          .addColumn('source_url', 'text')
          .addColumn('error', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('images_product').on('images').columns(['product_id', 'position']).execute();
        await db.schema
          .createTable('quote_uses')
          .addColumn('nonce', 'text', (c) => c.primaryKey())
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('product_id', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
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
    },
    '0003_analytics': analyticsMigration(dialect),
    '0004_webhooks': webhooksMigration(dialect),
    '0005_exports': exportsMigration,
    '0006_idempotency_principal': idempotencyPrincipalMigration,
    '0007_uploads_private': uploadsPrivateMigration,
  };
}

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return { getMigrations: async () => migrations(dialect) };
}
