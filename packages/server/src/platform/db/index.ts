import SqliteDatabase from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type Driver,
  type SqliteDialectConfig,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { closeBatchWriter, registerSqlite } from './batch.js';
import { migrationProvider, type MigrationSet } from './migrations.js';
import type { PlatformTables } from './schema.js';

export type { PlatformTables } from './schema.js';

/**
 * A connection or a transaction over the tables `DB`: the app's composition of every module's tables
 * (`src/db.ts`), or by default the platform's own, which is all platform code ever reads or writes.
 */
export type Executor<DB = PlatformTables> = Kysely<DB> | Transaction<DB>;

/**
 * The same executor seen through the platform's own tables. Sound because every app schema extends
 * PlatformTables; needed because Kysely's types are invariant in the schema.
 */
export function platformTables<DB extends PlatformTables>(executor: Kysely<DB>): Kysely<PlatformTables>;
export function platformTables<DB extends PlatformTables>(executor: Executor<DB>): Executor;
export function platformTables<DB extends PlatformTables>(executor: Executor<DB>): Executor {
  return executor as unknown as Executor;
}

export interface Database<DB = PlatformTables> {
  db: Kysely<DB>;
  /** the adapter's name (`sqlite`, `postgres`), as health and logs show it beside the other adapters' */
  kind: 'sqlite' | 'postgres';
  /** the connection string (PostgreSQL) or file path (SQLite) */
  url: string;
  /** Runs the migrations not yet applied; answers which database it migrated and what it ran. */
  migrate(): Promise<MigrationReport>;
  ping(): Promise<void>;
  /**
   * Calls `onNotify` when another connection sends `notify(channel)` (PostgreSQL LISTEN, on a connection of its own
   * that reconnects after an outage). SQLite has no such signal: it returns null and the caller polls.
   */
  listen(channel: string, onNotify: () => void): Promise<(() => Promise<void>) | null>;
  close(): Promise<void>;
}

/**
 * Wakes the listeners of `channel` once the caller's transaction commits (PostgreSQL NOTIFY is transactional);
 * a no-op on SQLite, whose single process polls instead.
 */
export async function notify<DB>(executor: Executor<DB>, channel: string): Promise<void> {
  if (hasRowLocks(executor)) {
    await sql`select pg_notify(${channel}, '')`.execute(executor);
  }
}

export interface MigrationReport {
  kind: Database['kind'];
  /** the names of the migrations this call ran, in order; empty when the database was up to date */
  applied: string[];
}

/**
 * `DB`: the tables the app composes (`src/db.ts`); `migrations`: the modules' migrations, which migrate()
 * runs after the platform's own.
 */
export function openDatabase<DB extends PlatformTables = PlatformTables>(url: string, migrations?: MigrationSet): Database<DB> {
  return /^postgres(ql)?:\/\//.test(url) ? openPostgres(url, migrations) : openSqlite(url, migrations);
}

function openSqlite<DB>(file: string, migrations?: MigrationSet): Database<DB> {
  if (file !== ':memory:') ownerOnlyFile(file);
  const raw = new SqliteDatabase(file);
  raw.pragma('journal_mode = WAL');
  // SQLite gives -wal and -shm the database file's mode; an older install's may have been made before.
  for (const extra of ['-wal', '-shm']) if (existsSync(file + extra)) chmodSync(file + extra, 0o600);
  // FULL: an acknowledged commit survives power loss, not only a process crash.
  raw.pragma('synchronous = FULL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  const db = new Kysely<DB>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(raw) }) });
  registerSqlite(db, raw, file === ':memory:' ? null : file);
  return finish(db, 'sqlite', file, migrations);
}

/**
 * Transactions begin IMMEDIATE: they take the write lock at once, waiting (busy_timeout) while another
 * connection to the file (a worker process's) commits. A deferred one that read first could find, when it
 * came to write, that the other connection had committed since its read, and fail with SQLITE_BUSY instead
 * of waiting.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/**
 * The database holds key hashes, sessions and every tenant's records: created 0600 in a 0700
 * directory before SQLite opens it (SQLite would use 0644), and tightened if an older start made it wider.
 */
function ownerOnlyFile(file: string) {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}

/**
 * Kysely's SQLite driver calls prepare() for every query, so SQLite parses and plans the same SQL
 * text on every request; keeping the prepared statements makes a repeated query cost its execution
 * only. Sharing one statement is safe: better-sqlite3 runs it to completion synchronously, and the
 * driver's connection mutex lets one query at a time use the connection.
 */
function withStatementCache(raw: SqliteDatabase.Database, max = 500) {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => raw.close(),
    prepare(sql: string) {
      const hit = statements.get(sql);
      if (hit) return hit;
      const stmt = raw.prepare(sql);
      // Texts vary with list lengths (`in (?, ?)`) and bulk inserts: bounded, oldest first out.
      if (statements.size >= max) statements.delete(statements.keys().next().value as string);
      statements.set(sql, stmt);
      return stmt;
    },
  };
}

function openPostgres<DB>(url: string, migrations?: MigrationSet): Database<DB> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return finish(db, 'postgres', url, migrations);
}

function finish<DB>(db: Kysely<DB>, kind: 'sqlite' | 'postgres', url: string, modules?: MigrationSet): Database<DB> {
  return {
    db,
    kind,
    url,
    async migrate() {
      const migrator = new Migrator({ db, provider: migrationProvider(kind, modules) });
      const { error, results } = await migrator.migrateToLatest();
      if (error) {
        const failed = results?.find((r) => r.status === 'Error');
        throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String((error as Error).message ?? error)}`);
      }
      return { kind, applied: (results ?? []).map((r) => r.migrationName) };
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    listen: (channel, onNotify) => (kind === 'postgres' ? listenPostgres(url, channel, onNotify) : Promise.resolve(null)),
    async close() {
      await closeBatchWriter(db);
      await db.destroy();
    },
  };
}

/** PostgreSQL can hold the job queue (pg-boss) beside the data; SQLite has the local job table instead. */
export const hostsPgBoss = <DB>(database: Database<DB>) => database.kind === 'postgres';

/** Dialect-neutral test for a unique-constraint violation. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Runs fn in a transaction, or inside the caller's one when given. */
export async function inTransaction<DB, T>(db: Executor<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Transaction<DB>);
  return (db as Kysely<DB>).transaction().execute(fn);
}

/**
 * Row locks are a capability of the dialect, asked for here and nowhere else: PostgreSQL locks rows with
 * SELECT … FOR UPDATE; SQLite runs one write transaction at a time, so a lock there would add nothing.
 */
const hasRowLocks = <DB>(db: Executor<DB>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** The query, locking the rows it reads for the rest of the transaction where the database has row locks. */
export function forUpdate<DB, Q extends { forUpdate(): Q }>(trx: Executor<DB>, query: Q): Q {
  return hasRowLocks(trx) ? query.forUpdate() : query;
}

/** Serialises writers of one organization's state (credits, product cap) for the rest of the transaction. */
export async function lockOrganization<DB extends PlatformTables>(trx: Transaction<DB>, orgId: string): Promise<void> {
  if (hasRowLocks(trx)) {
    await platformTables(trx).selectFrom('organizations').select('id').where('id', '=', orgId).forUpdate().execute();
  }
}

/** A dedicated client for LISTEN; on any error it reconnects after a second and wakes the listener (it may have missed a notification). */
async function listenPostgres(url: string, channel: string, onNotify: () => void): Promise<() => Promise<void>> {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: url, application_name: 'plinth-listen' });
    c.on('notification', (msg) => {
      if (msg.channel === channel) onNotify();
    });
    c.on('error', () => {
      if (client !== c) return;
      client = null;
      c.end().catch(() => {});
      retry = setTimeout(() => void connect().then(onNotify, () => {}), 1000);
    });
    try {
      await c.connect();
      await c.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      client = c;
    } catch {
      c.end().catch(() => {});
      retry = setTimeout(() => void connect().then(onNotify, () => {}), 1000);
    }
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const c = client;
    client = null;
    await c?.end().catch(() => {});
  };
}
