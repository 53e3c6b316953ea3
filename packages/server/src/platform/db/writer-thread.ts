import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** One statement and the rows it runs for, inside a transaction of the writer thread. */
export interface ThreadWrite {
  sql: string;
  rows: ReadonlyArray<readonly unknown[]>;
}

/**
 * The thread's own code, as text: the same under the compiled server and under the test runner, which
 * could not start a worker from a TypeScript file. It opens its own connection to the database file with
 * the same settings as the main one, keeps one prepared statement per SQL text (sent once, then named by its
 * number), and runs each message's writes in one transaction, answering with the message's number once it is
 * committed (or failed).
 */
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
// Statements arrive as text once, then by number: a batch carries only its rows.
const texts = [];
const statements = [];
const prepared = (n) => statements[n] || (statements[n] = db.prepare(texts[n]));
// Each row comes as [mask, ...cells]: bit c of the mask set means cell c is the previous row's (see sameAsAbove).
const run = db.transaction((writes) => {
  for (const [n, rows] of writes) {
    const stmt = prepared(n);
    let previous = null;
    for (const sent of rows) {
      const mask = sent[0];
      let row;
      if (mask === 0) row = sent.slice(1);
      else {
        row = new Array(previous.length);
        for (let c = 0, k = 1; c < row.length; c++) row[c] = (mask & (1 << c)) !== 0 ? previous[c] : sent[k++];
      }
      stmt.run(row);
      previous = row;
    }
  }
});
parentPort.on('message', (message) => {
  if (message.close) {
    db.close();
    parentPort.postMessage({ closed: true });
    return;
  }
  for (const [n, text] of message.define) texts[n] = text;
  try {
    run(JSON.parse(message.writes));
    parentPort.postMessage({ id: message.id });
  } catch (err) {
    parentPort.postMessage({ id: message.id, error: { message: String(err && err.message || err), code: err && err.code } });
  }
});
`;

interface Pending {
  resolve(): void;
  reject(err: Error): void;
}

/**
 * A second SQLite connection on a thread of its own, for write-heavy paths whose caller can wait for the
 * commit: the statements and the fsync of a durable commit (a few hundred µs each) then no longer hold the
 * event loop that answers every other request. SQLite lets one connection write at a time; the main
 * connection waits its turn (busy_timeout) and begins its transactions IMMEDIATE, so a commit here never
 * invalidates a read it is about to turn into a write.
 */
export class SqliteWriterThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private next = 1;
  /** each SQL text the thread has been sent, by its number there */
  private readonly numbers = new Map<string, number>();
  private broken: Error | null = null;
  private closing: Promise<void> | null = null;

  constructor(file: string, busyTimeoutMs = 5_000) {
    const module = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(SOURCE, { eval: true, workerData: { file, module, busyTimeoutMs } });
    // Idle, the thread must not keep the process alive; with writes in flight it must, or they are lost.
    this.worker.unref();
    this.worker.on('message', (message: { id?: number; error?: { message: string; code?: string } }) => {
      if (message.id === undefined) return;
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (this.pending.size === 0) this.worker.unref();
      if (message.error) waiter.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else waiter.resolve();
    });
    const fail = (err: Error) => {
      this.broken = err;
      for (const waiter of this.pending.values()) waiter.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the SQLite writer thread exited (code ${code})`)));
  }

  /** Resolves once every write is committed; rejects, with nothing written, if the transaction failed. */
  write(writes: readonly ThreadWrite[]): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closing) return Promise.reject(new Error('the SQLite writer thread is closing'));
    const id = this.next++;
    return new Promise<void>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      const define: Array<[number, string]> = [];
      const wire: Array<[number, ThreadWrite['rows']]> = [];
      for (const w of writes) {
        if (!w.rows.length) continue;
        let n = this.numbers.get(w.sql);
        if (n === undefined) {
          this.numbers.set(w.sql, (n = this.numbers.size));
          define.push([n, w.sql]);
        }
        wire.push([n, sameAsAbove(w.rows)]);
      }
      // As JSON text: copying one string costs less than the structured clone of many small arrays.
      this.worker.postMessage({ id, define, writes: JSON.stringify(wire) });
    });
  }

  /** Waits for the writes in flight (messages are handled in order), then closes the connection and the thread. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.broken) return;
      this.worker.ref();
      const closed = new Promise<void>((resolve) => {
        this.worker.on('message', (m: { closed?: boolean }) => m.closed && resolve());
        this.worker.once('exit', () => resolve());
      });
      this.worker.postMessage({ close: true });
      await closed;
      await this.worker.terminate();
    })();
    return this.closing;
  }
}

/**
 * Rows as [mask, ...cells], leaving out each cell equal to the one above it (bit c of the mask set): a batch's rows
 * mostly repeat their organization, product, times, viewer and page, and the text the thread is sent (made, copied
 * and parsed again: about half a microsecond per 16-cell row) shrinks to what changes. Rows wider than 30 cells
 * are sent whole.
 */
function sameAsAbove(rows: ReadonlyArray<readonly unknown[]>): unknown[][] {
  const out: unknown[][] = new Array(rows.length);
  let previous: readonly unknown[] | null = null;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const cells: unknown[] = [0];
    if (previous === null || row.length > 30 || row.length !== previous.length) {
      for (let c = 0; c < row.length; c++) cells.push(row[c]);
    } else {
      let mask = 0;
      for (let c = 0; c < row.length; c++) {
        if (row[c] === previous[c]) mask |= 1 << c;
        else cells.push(row[c]);
      }
      cells[0] = mask;
    }
    out[r] = cells;
    previous = row;
  }
  return out;
}
