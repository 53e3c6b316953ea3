import type SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, PostgresAdapter, type Kysely } from 'kysely';
import { SqliteWriterThread } from './writer-thread.js';

/**
 * Writes many rows of a few fixed shapes in one transaction, without building a query per row or per batch:
 * the SQL of each shape is written once. On SQLite the rows go through one prepared better-sqlite3
 * statement per shape, reused across batches, the whole transaction run on a writer thread with its own
 * connection (writer-thread.ts; in memory, where no second connection can see the data, synchronously on
 * the main one); on PostgreSQL each shape is one multi-row INSERT … VALUES per 500 rows.
 */
export interface BatchInsert {
  table: string;
  columns: readonly string[];
  /** appended after the values, the same text on both databases: `on conflict (…) do update set …` */
  onConflict?: string;
}

export interface BatchWrite {
  insert: BatchInsert;
  /** values in the order of `insert.columns`: strings, numbers or null */
  rows: ReadonlyArray<readonly unknown[]>;
}

/** Rows per PostgreSQL statement: far below its 65,535 bound parameters for any shape of a few columns. */
const CHUNK = 500;

interface SqliteHandle {
  raw: SqliteDatabase.Database;
  statements: Map<BatchInsert, SqliteDatabase.Statement>;
  /** the database file; null in memory, which no second connection can share */
  file: string | null;
  /** made at the first batch, so a server that never writes one starts no thread */
  thread: SqliteWriterThread | null;
}

const sqliteHandles = new WeakMap<object, SqliteHandle>();

/** Called by openDatabase: lets writeBatch reach the SQLite connection under a Kysely instance. */
export function registerSqlite<DB>(db: Kysely<DB>, raw: SqliteDatabase.Database, file: string | null): void {
  sqliteHandles.set(db, { raw, statements: new Map(), file, thread: null });
}

/** Called as the database closes: waits for the batches in flight on the writer thread, then stops it. */
export async function closeBatchWriter<DB>(db: Kysely<DB>): Promise<void> {
  const handle = sqliteHandles.get(db);
  const thread = handle?.thread;
  if (!thread) return;
  handle.thread = null;
  handle.file = null;
  await thread.close();
}

const oneRowSql = new Map<BatchInsert, string>();
const sqlOf = (insert: BatchInsert) => {
  let text = oneRowSql.get(insert);
  if (text === undefined) oneRowSql.set(insert, (text = insertSql(insert, 1, () => '?')));
  return text;
};

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function insertSql(insert: BatchInsert, rowCount: number, placeholder: (n: number) => string): string {
  const width = insert.columns.length;
  const tuples: string[] = [];
  for (let r = 0; r < rowCount; r++) {
    const cells: string[] = [];
    for (let c = 0; c < width; c++) cells.push(placeholder(r * width + c + 1));
    tuples.push(`(${cells.join(', ')})`);
  }
  return `insert into ${quote(insert.table)} (${insert.columns.map(quote).join(', ')}) values ${tuples.join(', ')}${insert.onConflict ? ` ${insert.onConflict}` : ''}`;
}

/**
 * All `writes`, in order, in one transaction: either every row is stored or none is. Resolves once committed.
 */
export async function writeBatch<DB>(db: Kysely<DB>, writes: readonly BatchWrite[]): Promise<void> {
  const sqlite = sqliteHandles.get(db);
  if (sqlite?.file) {
    // A database file: the batch is written and committed on the writer thread, off the event loop.
    sqlite.thread ??= new SqliteWriterThread(sqlite.file);
    await sqlite.thread.write(writes.map((w) => ({ sql: sqlOf(w.insert), rows: w.rows })));
    return;
  }
  if (sqlite) {
    // The connection is taken through Kysely, so no Kysely transaction is open on it meanwhile.
    await db.connection().execute(async () => writeSqlite(sqlite, writes));
    return;
  }
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const placeholder = postgres ? (n: number) => `$${n}` : () => '?';
  await db.transaction().execute(async (trx) => {
    for (const w of writes) {
      for (let i = 0; i < w.rows.length; i += CHUNK) {
        const rows = w.rows.slice(i, i + CHUNK);
        await trx.executeQuery(CompiledQuery.raw(insertSql(w.insert, rows.length, placeholder), rows.flat()));
      }
    }
  });
}

function writeSqlite(handle: SqliteHandle, writes: readonly BatchWrite[]) {
  const statements = writes.map((w) => {
    let stmt = handle.statements.get(w.insert);
    if (!stmt) handle.statements.set(w.insert, (stmt = handle.raw.prepare(sqlOf(w.insert))));
    return stmt;
  });
  handle.raw.transaction(() => {
    for (let s = 0; s < writes.length; s++) {
      const stmt = statements[s];
      for (const row of writes[s].rows) stmt.run(row as unknown[]);
    }
  })();
}
