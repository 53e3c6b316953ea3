import { sql, type CreateTableBuilder, type Expression, type Kysely, type Migration, type MigrationProvider } from 'kysely';

/**
 * One migration set for both dialects. Types are chosen to mean the same thing in each:
 * text for ids, timestamps and JSON; integer for counts and flags.
 * `seq` columns are the only dialect-specific piece, and they go through `autoIncrement`.
 */
export type Dialect = 'sqlite' | 'postgres';

/**
 * The migrations of the modules, by name, composed by the app (platform/ never imports a module). Names
 * sort in the order they run; each area keeps its own beside its code (`<area>.migration.ts`).
 */
export type MigrationSet = (dialect: SchemaDialect) => Record<string, Migration>;

/**
 * What a module's migration may need of the dialect, as capabilities rather than its name, so that the
 * difference itself stays here.
 */
export interface SchemaDialect {
  /** the column type of a copy of `events.seq` (a bigserial on PostgreSQL) */
  seqCopyType: 'bigint' | 'integer';
  /**
   * A table stored in its primary key's order: SQLite's WITHOUT ROWID keeps the rows in the key's b-tree,
   * so a range read never jumps to a rowid table; PostgreSQL has no such table option.
   */
  clusteredOnKey<B extends { modifyEnd(modifier: Expression<unknown>): B }>(table: B): B;
  /**
   * An integer primary key the database assigns in insertion order, for append-only tables that nothing looks
   * up by id: SQLite's rowid itself (`integer primary key`, so the table is one b-tree, not a table and an
   * index), an identity column on PostgreSQL.
   */
  rowKey<T extends string>(table: CreateTableBuilder<T, never>, column: string): CreateTableBuilder<T, string>;
}

function schemaDialect(dialect: Dialect): SchemaDialect {
  return {
    seqCopyType: dialect === 'postgres' ? 'bigint' : 'integer',
    clusteredOnKey: (table) => (dialect === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table),
    rowKey: (table, column) =>
      dialect === 'sqlite'
        ? table.addColumn(column, 'integer', (c) => c.primaryKey())
        : table.addColumn(column, 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity()),
  };
}

function seqColumn(dialect: Dialect) {
  return dialect === 'postgres' ? ('bigserial' as const) : ('integer' as const);
}

/** The platform's own tables (organizations, users, keys, events, jobs, …), then the modules'. */
export function migrations(dialect: Dialect, modules: MigrationSet = () => ({})): Record<string, Migration> {
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
    ...modules(schemaDialect(dialect)),
  };
}

/**
 * Several areas' migrations that were released as one step, run in order under that step's name: each
 * area keeps its own tables in its own file, and a database that ran the step sees no change.
 */
export function together(...steps: Migration[]): Migration {
  return {
    async up(db: Kysely<any>) {
      for (const step of steps) await step.up(db);
    },
  };
}

export function migrationProvider(dialect: Dialect, modules?: MigrationSet): MigrationProvider {
  return { getMigrations: async () => migrations(dialect, modules) };
}
