import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/env.js';
import { writeBatch, type BatchInsert } from './batch.js';
import { openDatabase, type Database } from './index.js';

/**
 * Batches share the connection with the app's own queries and transactions. These check what that must not
 * change: a batch is visible once its promise resolves, fails whole, never lands inside (or breaks) a
 * transaction that is open across an await, leaves the connection's durable setting as it found it, and is
 * not lost when the database closes with batches waiting.
 */
interface Tables {
  items: { id: string; n: number };
  counters: { name: string; value: number };
  cells: { k: number; a: string | null; b: string | null; c: number | null };
}

const ITEMS: BatchInsert = { table: 'items', columns: ['id', 'n'] };
const COUNTERS: BatchInsert = {
  table: 'counters',
  columns: ['name', 'value'],
  onConflict: 'on conflict ("name") do update set "value" = "counters"."value" + excluded."value"',
};

const dirs: Array<{ remove(): void }> = [];
const open: Database<Tables>[] = [];

async function database(file?: string): Promise<{ database: Database<Tables>; db: Kysely<Tables>; file: string }> {
  if (!file) {
    const dir = tempDir();
    dirs.push(dir);
    file = join(dir.path, 'batch.db');
  }
  const database = openDatabase(file) as unknown as Database<Tables>;
  open.push(database);
  await sql`create table if not exists items (id text primary key, n integer not null)`.execute(database.db);
  await sql`create table if not exists counters (name text primary key, value integer not null)`.execute(database.db);
  await sql`create table if not exists cells (k integer primary key, a text, b text, c real)`.execute(database.db);
  return { database, db: database.db, file };
}

const count = async (db: Kysely<Tables>) => Number((await db.selectFrom('items').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

afterEach(async () => {
  for (const d of open.splice(0)) await d.close().catch(() => {});
  for (const d of dirs.splice(0)) d.remove();
});

describe('batch writes', () => {
  it('a batch is readable as soon as it resolves, rollups included', async () => {
    const { db } = await database();
    await writeBatch(db, [
      { insert: ITEMS, rows: [['a', 1], ['b', 2]] },
      { insert: COUNTERS, rows: [['views', 2]] },
    ]);
    expect(await count(db)).toBe(2);
    await writeBatch(db, [{ insert: COUNTERS, rows: [['views', 3]] }]);
    expect(await db.selectFrom('counters').selectAll().execute()).toEqual([{ name: 'views', value: 5 }]);
  });

  it('rows are stored whole: text, null and real cells, repeated or not', async () => {
    const { db } = await database();
    const rows = [
      { k: 1, a: 'x', b: null, c: 1.5 },
      { k: 2, a: 'x', b: null, c: 1.5 },
      { k: 3, a: 'y', b: null, c: 2 },
      { k: 4, a: 'y', b: 'z', c: 2 },
      { k: 5, a: null, b: 'z', c: null },
      { k: 6, a: null, b: null, c: 0 },
    ];
    await writeBatch(db, [{ insert: { table: 'cells', columns: ['k', 'a', 'b', 'c'] }, rows: rows.map((r) => [r.k, r.a, r.b, r.c]) }]);
    expect(await db.selectFrom('cells').selectAll().orderBy('k').execute()).toEqual(rows);
  });

  it('a sparse insert stores each row whole and in order, whichever of its cells are null', async () => {
    const { db } = await database();
    await sql`create table sparse (id integer primary key, a text, b text, c real)`.execute(db);
    const sparse: BatchInsert = { table: 'sparse', columns: ['a', 'b', 'c'], sparse: true };
    const rows = [
      ['x', null, 1.5],
      [null, 'y', 0],
      ['', null, null],
      ['x', 'y', 2],
      [null, 'z', null],
      ['w', null, 1.5],
    ];
    await writeBatch(db, [{ insert: sparse, rows }]);
    await writeBatch(db, [{ insert: sparse, rows: [['v', 'v', 3]] }]);
    const stored = await sql<{ id: number; a: string | null; b: string | null; c: number | null }>`select * from sparse order by id`.execute(db);
    // Rows keep the order they were given across their statements; '' and 0 are values, not left out.
    expect(stored.rows.map((r) => [r.a, r.b, r.c])).toEqual([...rows, ['v', 'v', 3]]);
  });

  it('a shared insert writes runs of rows with the same leading cells in one statement, in order, nulls and all', async () => {
    const { db } = await database();
    await sql`create table shared (id integer primary key, a text, b text, c real, d text)`.execute(db);
    const shared: BatchInsert = { table: 'shared', columns: ['a', 'b', 'c', 'd'], shared: 2, sparse: true };
    const rows = [
      ['p', 'q', 1, 'x'],
      ['p', 'q', 2, null],
      ['p', 'q', null, null],
      ['p', null, 3, 'y'],
      ['p', null, 4, 'y'],
      ['r', 'q', null, null],
      ['r', 'q', null, null],
      [null, null, 5, null],
      ['p', 'q', 6, 'z'],
    ];
    await writeBatch(db, [{ insert: shared, rows }]);
    // Groups (a request's rows) bound the runs: here the first row goes alone, the next two together.
    await writeBatch(db, [{ insert: shared, rows: rows.slice(0, 3), groups: [1, 2] }]);
    const stored = await sql<{ a: string | null; b: string | null; c: number | null; d: string | null }>`select a, b, c, d from shared order by id`.execute(db);
    // The rows with no cell of their own (r, q) go one by one; every other run is one statement.
    expect(stored.rows.map((r) => [r.a, r.b, r.c, r.d])).toEqual([...rows, ...rows.slice(0, 3)]);
  });

  it('more shapes than the statement cache keeps are all written', async () => {
    const { db } = await database();
    await sql`create table shared (id integer primary key, a text, b text, c real, d text)`.execute(db);
    const shared: BatchInsert = { table: 'shared', columns: ['a', 'b', 'c', 'd'], shared: 2, sparse: true };
    // 100 run lengths times 3 sets of present cells: 300 statements, past the cache's 256.
    const rows: unknown[][] = [];
    const groups: number[] = [];
    for (const d of ['x', null, 'y']) {
      for (let n = 1; n <= 100; n++) {
        for (let r = 0; r < n; r++) rows.push(['p', d === 'y' ? null : 'q', r, d]);
        groups.push(n);
      }
    }
    await writeBatch(db, [{ insert: shared, rows, groups }]);
    await writeBatch(db, [{ insert: shared, rows, groups }]);
    const stored = await sql<{ a: string; b: string | null; c: number; d: string | null }>`select a, b, c, d from shared order by id`.execute(db);
    expect(stored.rows.map((r) => [r.a, r.b, r.c, r.d])).toEqual([...rows, ...rows]);
  });

  it('a shared upsert adds up its run', async () => {
    const { db } = await database();
    const counters: BatchInsert = { ...COUNTERS, columns: ['value', 'name'], shared: 1 };
    await writeBatch(db, [{ insert: counters, rows: [[1, 'a'], [1, 'b'], [2, 'a']] }]);
    await writeBatch(db, [{ insert: counters, rows: [[1, 'a'], [1, 'c']] }]);
    expect(await db.selectFrom('counters').selectAll().orderBy('name').execute()).toEqual([
      { name: 'a', value: 4 },
      { name: 'b', value: 1 },
      { name: 'c', value: 1 },
    ]);
  });

  it('a batch that breaks a constraint fails whole, with SQLite\'s code, and the next one is written', async () => {
    const { db } = await database();
    await writeBatch(db, [{ insert: ITEMS, rows: [['a', 1]] }]);
    const failed = writeBatch(db, [{ insert: ITEMS, rows: [['b', 2], ['a', 3]] }]);
    await expect(failed).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(await db.selectFrom('items').select('id').orderBy('id').execute()).toEqual([{ id: 'a' }]);
    await writeBatch(db, [{ insert: ITEMS, rows: [['c', 4]] }]);
    expect(await count(db)).toBe(2);
  });

  it('transactions that read, await, then write neither fail nor take in a batch written meanwhile', async () => {
    const { db } = await database();
    await sql`insert into counters (name, value) values ('main', 0)`.execute(db);
    const batches: Promise<void>[] = [];
    const transactions: Promise<void>[] = [];
    for (let i = 0; i < 200; i++) {
      batches.push(writeBatch(db, [{ insert: ITEMS, rows: [[`t${i}`, i]] }]));
      transactions.push(
        db.transaction().execute(async (trx) => {
          const row = await trx.selectFrom('counters').select('value').where('name', '=', 'main').executeTakeFirstOrThrow();
          await new Promise((resolve) => setImmediate(resolve));
          await trx.updateTable('counters').set({ value: row.value + 1 }).where('name', '=', 'main').execute();
        }),
      );
    }
    const outcomes = await Promise.allSettled([...batches, ...transactions]);
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    expect(await count(db)).toBe(200);
    // Every read-then-write saw the one before it: no update was lost.
    expect((await db.selectFrom('counters').select('value').where('name', '=', 'main').executeTakeFirstOrThrow()).value).toBe(200);
  });

  it('closing the database waits for the batches in flight: none is lost', async () => {
    const { database: first, file } = await database();
    const pending = Array.from({ length: 50 }, (_, i) => writeBatch(first.db, [{ insert: ITEMS, rows: [[`c${i}`, i]] }]));
    await first.close();
    expect((await Promise.allSettled(pending)).every((o) => o.status === 'fulfilled')).toBe(true);
    const { db } = await database(file);
    expect(await count(db)).toBe(50);
  });

  it('a batch on a file commits without waiting for the disk, and the connection stays FULL for everything else', async () => {
    const { db } = await database();
    const setting = async () => Number(Object.values((await sql<Record<string, number>>`pragma synchronous`.execute(db)).rows[0])[0]);
    expect(await setting()).toBe(2);
    await writeBatch(db, [{ insert: ITEMS, rows: [['a', 1]] }]);
    expect(await setting()).toBe(2);
    // A failed batch too.
    await expect(writeBatch(db, [{ insert: ITEMS, rows: [['a', 2]] }])).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(await setting()).toBe(2);
  });

  it('an in-memory database writes its batches too', async () => {
    const database = openDatabase(':memory:') as unknown as Database<Tables>;
    open.push(database);
    await sql`create table items (id text primary key, n integer not null)`.execute(database.db);
    await writeBatch(database.db, [{ insert: ITEMS, rows: [['m', 1]] }]);
    expect(await count(database.db)).toBe(1);
  });
});
