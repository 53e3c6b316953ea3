// How long one durable SQLite commit takes on this machine's disk (WAL, synchronous=FULL, as Plinth
// opens its database). It bounds what any server that acknowledges only stored events can do.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export function durableCommitMs(dir, commits = 100) {
  const tmp = mkdtempSync(join(dir, 'fsync-probe-'));
  try {
    const db = new Database(join(tmp, 'probe.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('create table t (n integer)');
    const insert = db.prepare('insert into t values (?)');
    const times = [];
    for (let i = 0; i < commits; i++) {
      const started = performance.now();
      insert.run(i);
      times.push(performance.now() - started);
    }
    db.close();
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
