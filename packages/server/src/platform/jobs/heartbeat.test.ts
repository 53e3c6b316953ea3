import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../logger.js';
import { MODULE_MIGRATIONS } from '../../migrations.js';
import { freshPostgresDatabase, TEST_BACKEND, tempDir } from '../../test/env.js';
import { waitFor } from '../../test/fixture-server.js';
import { openDatabase, type Database } from '../db/index.js';
import { liveWorkers, type HeldJob } from './heartbeat.js';
import { createJobQueue } from './index.js';
import type { Job, JobQueue } from './types.js';

const logger = createLogger('silent');
const dir = tempDir('plinth-heartbeat-');
let url = join(dir.path, 'heartbeat.db');
let dropDatabase = async () => {};
let database: Database;
const queues: JobQueue[] = [];

function queue(): JobQueue {
  const config = loadConfig({
    PLINTH_DATA_DIR: dir.path,
    PLINTH_SECRET: 'test-secret-0123456789abcdef',
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    PLINTH_JOB_POLL_MS: '50',
    // A lease far longer than the test: only the heartbeat can free the dead worker's job.
    PLINTH_JOB_LEASE_SECONDS: '3600',
  });
  const q = createJobQueue(config, database, logger, { heartbeatMs: 100 });
  queues.push(q);
  return q;
}

/** Marks the job as taken by `workerId` (its first attempt running), as that worker's claim would have; returns it as held. */
async function takenBy(workerId: string, queueName: string, id: string): Promise<HeldJob> {
  if (TEST_BACKEND === 'sqlite') {
    const now = new Date().toISOString();
    await database.db
      .updateTable('jobs')
      .set({ state: 'active', attempts: 1, locked_by: workerId, locked_until: new Date(Date.now() + 3_600_000).toISOString(), updated_at: now })
      .where('id', '=', id)
      .execute();
    return { queue: queueName, id, started: now };
  }
  const { rows } = await sql<{ started: Date }>`
    update pgboss.job set state = 'active', started_on = now(), expire_in = interval '1 hour'
    where name = ${queueName} and id = ${id}::uuid returning started_on as started`.execute(database.db);
  return { queue: queueName, id, started: rows[0]!.started.toISOString() };
}

/** A worker row whose last heartbeat is a minute old: the process died holding `jobs`. */
async function deadWorker(workerId: string, jobs: HeldJob[]): Promise<void> {
  const minuteAgo = new Date(Date.now() - 60_000).toISOString();
  await database.db
    .insertInto('workers')
    .values({ id: workerId, host: 'gone-host', pid: 1, started_at: minuteAgo, heartbeat_at: minuteAgo, jobs: JSON.stringify(jobs) })
    .execute();
}

beforeAll(async () => {
  if (TEST_BACKEND === 'postgres') {
    const pg = await freshPostgresDatabase();
    url = pg.url;
    dropDatabase = pg.drop;
  }
  database = openDatabase(url, MODULE_MIGRATIONS);
  await database.migrate();
});

afterEach(async () => {
  await Promise.all(queues.splice(0).map((q) => q.close()));
});

afterAll(async () => {
  await database.close();
  await dropDatabase().catch(() => {});
  dir.remove();
});

describe(`worker heartbeats (${TEST_BACKEND})`, () => {
  it("releases a dead worker's job to a live worker at once, the lost run counted as an attempt", async () => {
    const seen: Job[] = [];
    const name = 'heartbeat-dead';
    // The job is enqueued and taken by a worker that then died, before any live worker polls.
    const enqueuer = queue();
    await enqueuer.open();
    await enqueuer.declare([name]);
    const id = await enqueuer.enqueue(database.db, name, { n: 1 });
    await deadWorker('dead-worker', [await takenBy('dead-worker', name, id)]);

    const live = queue();
    await live.open();
    live.register(name, async (job) => void seen.push(job));
    await live.start();
    await waitFor(async () => seen.length > 0, 20_000, 'the released job to run');
    expect(seen.map((j) => [j.id, j.attempt])).toEqual([[id, 2]]);
    // The dead worker's row went with its jobs; the live one beats.
    const workers = await database.db.selectFrom('workers').select('id').execute();
    expect(workers.map((w) => w.id)).not.toContain('dead-worker');
    expect(workers).toHaveLength(1);
  });

  it('lists live workers with the jobs they hold, not dead ones, and removes a stopped worker', async () => {
    const name = 'heartbeat-held';
    let release = () => {};
    const holding = new Promise<void>((resolve) => (release = resolve));
    let running = false;
    const live = queue();
    await live.open();
    await live.declare([name]);
    live.register(name, async () => {
      running = true;
      await holding;
    });
    await deadWorker('long-gone', []);
    await live.start();
    await live.enqueue(database.db, name, {});
    await waitFor(async () => running, 20_000, 'the job to run');
    await waitFor(async () => (await liveWorkers(database.db)).some((w) => w.jobs_held === 1), 20_000, 'the heartbeat to list the job');
    const [worker, ...others] = await liveWorkers(database.db);
    expect(others).toEqual([]);
    expect(worker).toMatchObject({ host: expect.any(String), jobs_held: 1 });
    expect(Date.parse(worker!.last_heartbeat_at)).toBeGreaterThanOrEqual(Date.parse(worker!.started_at));
    release();
    await live.close();
    expect(await database.db.selectFrom('workers').select('id').where('id', '=', worker!.id).execute()).toEqual([]);
  });
});
