import { open } from 'node:fs/promises';
import type SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, PostgresAdapter, type Kysely } from 'kysely';

/**
 * Writes many rows of a few fixed shapes in one transaction, without building a query per row or per batch:
 * the SQL of each shape is written once. On SQLite the rows go through one prepared better-sqlite3
 * statement per shape, reused across batches; on PostgreSQL each shape is one multi-row INSERT … VALUES per
 * 500 rows.
 *
 * Batches are analytics events (the beacon's group commit), and on a SQLite file their commits wait for the
 * operating system, not the disk (`synchronous = NORMAL` for the batch's transaction; everything else on the
 * connection stays `FULL`): an acknowledged batch survives a crash of the process at once, and a crash of the
 * host once the WAL file is flushed, WAL_FLUSH_MS later at most (sooner at a checkpoint or at any `FULL` commit,
 * which flushes the same file). Money, jobs and products never come here. A commit without its flush costs
 * about 100 µs for a burst of 40 beacons, so it runs on the event loop: handing it to a thread cost more in
 * wake-ups and waiting than the work it moved.
 */
export interface BatchInsert {
  table: string;
  columns: readonly string[];
  /** appended after the values, the same text on both databases: `on conflict (…) do update set …` */
  onConflict?: string;
  /**
   * A null cell may be left out of the row's statement: every column that can receive a null defaults to null. On
   * SQLite a row's null cells are then not bound, each set of present columns getting a prepared statement of its
   * own, since binding a cell costs more than storing it (about 0.1 µs through better-sqlite3). For wide rows that
   * are mostly null, like a beacon event's.
   */
  sparse?: boolean;
  /**
   * On SQLite, consecutive rows whose first `shared` cells are the same values (a request's events share their
   * organization, page and viewer) are written by one statement that binds those cells once:
   * `insert … select ?, ?, v.column1, … from (values (?, ?), …) as v`, rows in their order. A 20-event beacon
   * binds about 70 cells instead of 200. PostgreSQL writes every row's cells, as without it.
   */
  shared?: number;
}

export interface BatchWrite {
  insert: BatchInsert;
  /** values in the order of `insert.columns`: strings, numbers or null */
  rows: ReadonlyArray<readonly unknown[]>;
  /**
   * For a shared insert: the lengths of the consecutive groups of rows that may share a statement (a request's
   * events), in order; rows of two groups never do. Without it any consecutive rows may.
   */
  groups?: readonly number[];
}

/** Rows per PostgreSQL statement: far below its 65,535 bound parameters for any shape of a few columns. */
const CHUNK = 500;

/** The longest an acknowledged batch waits in the operating system's cache before the disk has it. */
export const WAL_FLUSH_MS = 1_000;

interface SqliteHandle {
  raw: SqliteDatabase.Database;
  /** the database file; null in memory */
  file: string | null;
  /** the pending flush of the WAL file, set by a batch's commit */
  flush: NodeJS.Timeout | null;
  /** batches waiting for the connection or being written, each settled either way */
  inFlight: Set<Promise<void>>;
  /** one transaction function for every batch, and the two settings a file's batch switches between */
  write: (writes: readonly BatchWrite[]) => void;
  normal: SqliteDatabase.Statement | null;
  full: SqliteDatabase.Statement | null;
}

const sqliteHandles = new WeakMap<object, SqliteHandle>();

/** Called by openDatabase: lets writeBatch reach the SQLite connection under a Kysely instance. */
export function registerSqlite<DB>(db: Kysely<DB>, raw: SqliteDatabase.Database, file: string | null): void {
  const statements = new Map<BatchInsert, SqliteDatabase.Statement>();
  /** statements of sparse or shared inserts, by the cells they bind: see writeShaped */
  const shaped = new Map<BatchInsert, Map<number, SqliteDatabase.Statement>>();
  // Made once: a transaction function and a pragma's statement cost a few µs each to build, per batch.
  // Values are passed as arguments, not as one array: better-sqlite3 reads an array's cells one API call at a time.
  const write = raw.transaction((writes: readonly BatchWrite[]) => {
    for (const { insert, rows, groups } of writes) {
      if (insert.sparse || insert.shared) {
        writeShaped(raw, shaped, insert, rows, groups);
        continue;
      }
      let stmt = statements.get(insert);
      if (!stmt) statements.set(insert, (stmt = raw.prepare(insertSql(insert, 1, () => '?'))));
      for (const row of rows) stmt.run(...row);
    }
  });
  const setting = (value: string) => (file ? raw.prepare(`pragma synchronous = ${value}`) : null);
  sqliteHandles.set(db, { raw, file, flush: null, inFlight: new Set(), write, normal: setting('NORMAL'), full: setting('FULL') });
}

/** Rows a shared statement takes at most (a beacon's events, at most 100). */
const MAX_RUN = 100;
/** Statements kept per insert: the shapes a client can cause (which cells are null, how many events) are many. */
const MAX_SHAPES = 256;

const isNull = (cell: unknown) => cell === null || cell === undefined;

/**
 * Writes rows of a sparse or shared insert in order, a run of rows at a time: a run is one row, or consecutive rows
 * of one group with the same first `shared` cells. A run binds the columns that hold a value in it (every column,
 * unless sparse): its shared cells once, then each row's own.
 */
function writeShaped(
  raw: SqliteDatabase.Database,
  cache: Map<BatchInsert, Map<number, SqliteDatabase.Statement>>,
  insert: BatchInsert,
  rows: ReadonlyArray<readonly unknown[]>,
  groups: readonly number[] | undefined,
) {
  const width = insert.columns.length;
  if (width > 30) throw new Error(`a sparse or shared insert has at most 30 columns (${insert.table} has ${width})`);
  const lead = insert.shared ?? 0;
  let byShape = cache.get(insert);
  if (!byShape) cache.set(insert, (byShape = new Map()));
  const values: unknown[] = [];
  let i = 0;
  let group = 0;
  let groupEnd = groups ? groups[0] : rows.length;
  while (i < rows.length) {
    while (i >= groupEnd) groupEnd += groups![++group];
    const first = rows[i];
    let end = i + 1;
    while (lead && end < groupEnd && end - i < MAX_RUN && sameLead(first, rows[end], lead)) end++;
    let mask = 0;
    for (let c = 0; c < width; c++) {
      if (!insert.sparse) mask |= 1 << c;
      else if (c < lead || end - i === 1) mask |= isNull(first[c]) ? 0 : 1 << c;
      else for (let r = i; r < end; r++) if (!isNull(rows[r][c])) {
        mask |= 1 << c;
        break;
      }
    }
    // A run needs a cell of its own in each row to list them; without one its rows go one by one.
    const ownCells = mask >>> lead;
    if (end - i > 1 && ownCells === 0) end = i + 1;
    const count = end - i;
    // A row's statement by its mask (a small integer), a run's by its mask and length.
    const key = count === 1 ? mask : -(mask * (MAX_RUN + 1) + count);
    let stmt = byShape.get(key);
    if (!stmt) {
      // A hostile client could shape many: past the bound the cache starts again from the shapes in use.
      if (byShape.size >= MAX_SHAPES) byShape.clear();
      stmt = raw.prepare(count === 1 ? insertSql(pick(insert, mask, 0, width), 1, () => '?') : runSql(insert, mask, lead, count));
      byShape.set(key, stmt);
    }
    values.length = 0;
    if (count === 1) {
      for (let c = 0; c < width; c++) if (mask & (1 << c)) values.push(first[c]);
    } else {
      for (let c = 0; c < lead; c++) if (mask & (1 << c)) values.push(first[c]);
      for (let r = i; r < end; r++) for (let c = lead; c < width; c++) if (mask & (1 << c)) values.push(rows[r][c] ?? null);
    }
    stmt.run(...values);
    i = end;
  }
}

const sameLead = (a: readonly unknown[], b: readonly unknown[], lead: number) => {
  for (let c = 0; c < lead; c++) if (a[c] !== b[c]) return false;
  return true;
};

/** The insert narrowed to the columns of `mask` within [from, to). */
const pick = (insert: BatchInsert, mask: number, from: number, to: number): BatchInsert => ({
  ...insert,
  columns: insert.columns.filter((_, c) => c >= from && c < to && mask & (1 << c)),
});

/**
 * `insert into t (shared…, own…) select ?, …, v.column1, … from (values (?, …), …) as v` for `count` rows (with
 * `where true` before an upsert's clause, which SQLite needs after a select).
 */
function runSql(insert: BatchInsert, mask: number, lead: number, count: number): string {
  const shared = pick(insert, mask, 0, lead).columns;
  const own = pick(insert, mask, lead, insert.columns.length).columns;
  const select = [...shared.map(() => '?'), ...own.map((_, c) => `v.column${c + 1}`)].join(', ');
  const tuple = `(${own.map(() => '?').join(', ')})`;
  const values = Array.from({ length: count }, () => tuple).join(', ');
  return `insert into ${quote(insert.table)} (${[...shared, ...own].map(quote).join(', ')}) select ${select} from (values ${values}) as v${insert.onConflict ? ` where true ${insert.onConflict}` : ''}`;
}

/**
 * Called as the database closes: the batches already handed over are written, and what they committed reaches
 * the disk, before the connection goes.
 */
export async function closeBatchWriter<DB>(db: Kysely<DB>): Promise<void> {
  const handle = sqliteHandles.get(db);
  if (!handle) return;
  while (handle.inFlight.size) await Promise.all(handle.inFlight);
  if (!handle.flush || !handle.file) return;
  clearTimeout(handle.flush);
  handle.flush = null;
  await syncWal(handle.file);
}

const walFile = (file: string) => `${file}-wal`;

/**
 * fsync of the WAL file on the libuv pool, through a descriptor of our own: it flushes the writes SQLite made
 * through its descriptor too. No WAL file means a checkpoint moved everything into the database file and
 * flushed it; a failure leaves the next flush (or checkpoint) to do it.
 */
const syncWal = (file: string): Promise<void> =>
  open(walFile(file), 'r').then(
    (fh) => fh.sync().finally(() => fh.close()).catch(() => {}),
    () => {},
  );

/** Flushes the WAL file WAL_FLUSH_MS after the first batch it has not flushed, off the event loop. */
function flushSoon(handle: SqliteHandle) {
  if (handle.flush || !handle.file) return;
  const file = handle.file;
  handle.flush = setTimeout(() => {
    handle.flush = null;
    void syncWal(file);
  }, WAL_FLUSH_MS);
  handle.flush.unref();
}

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
  if (sqlite) {
    // The connection is taken through Kysely, so no Kysely transaction is open on it meanwhile.
    const written = db.connection().execute(async () => writeSqlite(sqlite, writes));
    const settled = written.then(
      () => {},
      () => {},
    );
    sqlite.inFlight.add(settled);
    void settled.then(() => sqlite.inFlight.delete(settled));
    return written;
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
  if (!handle.normal || !handle.full) return handle.write(writes);
  // Nothing else runs on the connection until this returns: the setting holds for this transaction only.
  handle.normal.run();
  try {
    handle.write(writes);
  } finally {
    handle.full.run();
  }
  flushSoon(handle);
}
