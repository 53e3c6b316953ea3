import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../logger.js';
import { freshPostgresDatabase, TEST_BACKEND, tempDir } from '../../test/env.js';
import { openDatabase, type Database, type Executor } from '../db/index.js';
import { createJobQueue, type JobQueueOptions } from './index.js';
import type { Job, JobQueue } from './types.js';

const logger = createLogger('silent');
const dir = tempDir('plinth-jobs-');
let url = join(dir.path, 'jobs.db');
let dropDatabase = async () => {};
let database: Database;
const databases: Database[] = [];
const queues: JobQueue[] = [];
let counter = 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const uniqueName = (label: string) => `${label}-${++counter}`;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PLINTH_DATA_DIR: dir.path,
    PLINTH_SECRET: 'test-secret-0123456789abcdef',
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    PLINTH_JOB_POLL_MS: '50',
    PLINTH_JOB_LEASE_SECONDS: '5',
    ...extra,
  };
}

function queue(extra: Record<string, string> = {}, options: JobQueueOptions = {}, db = database): JobQueue {
  const q = createJobQueue(loadConfig(env(extra)), db, logger, options);
  queues.push(q);
  return q;
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** The job as the store has it, in the local adapter's vocabulary. */
async function stored(id: string): Promise<{ state: string; error: string | null } | undefined> {
  if (TEST_BACKEND === 'sqlite') {
    const row = await database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && { state: row.state, error: row.last_error };
  }
  const { rows } = await sql<{ state: string; output: string | null }>`
    select state::text as state, output::text as output from pgboss.job where id = ${id}::uuid`.execute(database.db);
  if (!rows[0]) return undefined;
  const state = rows[0].state === 'created' || rows[0].state === 'retry' ? 'queued' : rows[0].state;
  return { state, error: rows[0].output };
}

async function countJobs(name: string, executor: Executor = database.db): Promise<number> {
  if (TEST_BACKEND === 'sqlite') {
    const row = await executor.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('queue', '=', name).executeTakeFirstOrThrow();
    return Number(row.n);
  }
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pgboss.job where name = ${name}`.execute(executor);
  return rows[0].n;
}

beforeAll(async () => {
  if (TEST_BACKEND === 'postgres') {
    const pg = await freshPostgresDatabase();
    url = pg.url;
    dropDatabase = pg.drop;
  }
  database = openDatabase(url);
  databases.push(database);
  await database.migrate();
});

afterEach(async () => {
  await Promise.all(queues.splice(0).map((q) => q.close()));
});

afterAll(async () => {
  await Promise.all(databases.map((d) => d.close()));
  await dropDatabase().catch(() => {});
  dir.remove();
});

describe(`jobs (${TEST_BACKEND})`, () => {
  it('runs a job enqueued in a committed transaction exactly once, with its data', async () => {
    // Two workers with their own connections compete for the same jobs, as two processes would.
    const other = openDatabase(url);
    databases.push(other);
    const name = uniqueName('commit');
    const runs: Job[] = [];
    for (const db of [database, other]) {
      const q = queue({}, {}, db);
      await q.open();
      q.register(name, async (job) => void runs.push(job));
      await q.start();
      await q.ping();
    }
    const producer = queue();
    await producer.open();
    const ids = await database.db.transaction().execute(async (trx) => {
      const out: string[] = [];
      for (let i = 0; i < 6; i++) out.push(await producer.enqueue(trx, name, { i, text: `job ${i}`, nested: { ok: true } }));
      return out;
    });
    await waitFor('all jobs to run', () => runs.length >= 6);
    await sleep(1500); // a duplicate run would show up here
    expect(runs).toHaveLength(6);
    expect(runs.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const run of runs) {
      const i = ids.indexOf(run.id);
      expect(run).toEqual({ id: ids[i], name, data: { i, text: `job ${i}`, nested: { ok: true } }, attempt: 1 });
      expect((await stored(run.id))?.state).toBe('completed');
    }
  });

  it.skipIf(TEST_BACKEND !== 'sqlite')('starts a job enqueued in its own process without waiting for the next poll', async () => {
    const name = uniqueName('wake');
    const runs: string[] = [];
    // The first poll (at start) finds nothing; the next would be ten minutes later.
    const q = queue({ PLINTH_JOB_POLL_MS: '600000' });
    await q.open();
    q.register(name, async (job) => void runs.push(job.id));
    await q.start();
    await sleep(200);
    const id = await database.db.transaction().execute(async (trx) => {
      const enqueued = await q.enqueue(trx, name, {});
      // The wake-up comes before the commit: the claim waits for it on the one connection.
      await sleep(100);
      return enqueued;
    });
    await waitFor('the job to run', () => runs.includes(id));
    expect((await stored(id))?.state).toBe('completed');
  });

  it('never runs a job whose transaction rolled back', async () => {
    const name = uniqueName('rollback');
    const runs: string[] = [];
    const q = queue();
    await q.open();
    q.register(name, async (job) => void runs.push(job.id));
    await q.start();
    let rolledBack = '';
    await expect(
      database.db.transaction().execute(async (trx) => {
        rolledBack = await q.enqueue(trx, name, { doomed: true });
        expect(await countJobs(name, trx)).toBe(1); // the job really went through the transaction
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    // A committed job on the same queue proves the worker was polling the whole time.
    const canary = await database.db.transaction().execute((trx) => q.enqueue(trx, name, { canary: true }));
    await waitFor('the canary job', () => runs.includes(canary));
    await sleep(1500);
    expect(runs).toEqual([canary]);
    expect(await stored(rolledBack)).toBeUndefined();
    expect(await countJobs(name)).toBe(1);
  });

  it('enqueues to queues never seen before, several in one transaction', async () => {
    // pg-boss creates each queue on its own connection while the caller's transaction is open: no deadlock.
    const names = [uniqueName('fresh'), uniqueName('fresh')];
    const q = queue();
    await q.open();
    await database.db.transaction().execute(async (trx) => {
      for (const name of names) await q.enqueue(trx, name, {});
    });
    expect(await Promise.all(names.map((n) => countJobs(n)))).toEqual([1, 1]);
  }, 10_000);

  it('retries a failing handler with growing backoff and marks it failed after the last attempt', async () => {
    const name = uniqueName('failing');
    const attempts: { attempt: number; at: number }[] = [];
    const q = queue();
    await q.open();
    q.register(name, async (job) => {
      attempts.push({ attempt: job.attempt, at: Date.now() });
      throw new Error(`boom ${job.attempt}`);
    });
    await q.start();
    const id = await q.enqueue(database.db, name, { x: 1 }, { retryLimit: 2 });
    await waitFor('the job to fail for good', async () => (await stored(id))?.state === 'failed', 25_000);
    await sleep(1000);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(900);
    expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(1900);
    expect((await stored(id))?.error).toContain('boom 3');
  }, 40_000);

  it('leaves jobs of unregistered queues alone and honours delaySeconds', async () => {
    const name = uniqueName('known');
    const runs = new Map<string, number>();
    const q = queue();
    await q.open();
    q.register(name, async (job) => void runs.set(job.id, Date.now()));
    await q.start();
    const stranger = await q.enqueue(database.db, uniqueName('unknown'), {});
    const t0 = Date.now();
    const delayed = await q.enqueue(database.db, name, {}, { delaySeconds: 2 });
    const now = await q.enqueue(database.db, name, {});
    await waitFor('both jobs', () => runs.size === 2, 10_000);
    expect(runs.get(now)!).toBeLessThan(runs.get(delayed)!);
    expect(runs.get(delayed)! - t0).toBeGreaterThanOrEqual(1900);
    expect((await stored(stranger))?.state).toBe('queued');
  });

  it('runs at most config.jobs.concurrency jobs at once', async () => {
    const name = uniqueName('concurrency');
    let active = 0;
    let peak = 0;
    let done = 0;
    const q = queue({ PLINTH_JOB_CONCURRENCY: '2' });
    await q.open();
    q.register(name, async () => {
      peak = Math.max(peak, ++active);
      await sleep(400);
      active--;
      done++;
    });
    for (let i = 0; i < 6; i++) await q.enqueue(database.db, name, { i });
    await q.start();
    await waitFor('all jobs', () => done === 6);
    expect(peak).toBe(2);
  });

  it('re-runs a job after its worker process is killed with SIGKILL mid-run, once the lease expires', async () => {
    const name = uniqueName('killed');
    const lease = { PLINTH_JOB_LEASE_SECONDS: '2' };
    const producer = queue(lease);
    await producer.open();
    const id = await producer.enqueue(database.db, name, { survive: 'kill -9' });

    const marker = join(dir.path, `${name}.started`);
    const script = fileURLToPath(new URL('./test-child.mjs', import.meta.url));
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, ...env(lease), JOB_NAME: name, MARKER: marker },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    try {
      await waitFor('the child to start the job', () => existsSync(marker) || child.exitCode !== null, 30_000);
    } finally {
      child.kill('SIGKILL');
    }
    expect(existsSync(marker), `child output:\n${output}`).toBe(true);
    const startedAt = Date.now();
    expect(await exited).toBe('SIGKILL');
    expect(JSON.parse(readFileSync(marker, 'utf8'))).toMatchObject({ id, attempt: 1 });
    expect((await stored(id))?.state).toBe('active'); // nobody finished or released it

    const runs: { job: Job; at: number }[] = [];
    const rescuer = queue(lease);
    await rescuer.open();
    rescuer.register(name, async (job) => void runs.push({ job, at: Date.now() }));
    await rescuer.start();
    await waitFor('the job to run again', () => runs.length > 0, 30_000);
    await waitFor('the job to complete', async () => (await stored(id))?.state === 'completed');
    expect(runs).toHaveLength(1);
    expect(runs[0].job).toEqual({ id, name, data: { survive: 'kill -9' }, attempt: 2 });
    expect(runs[0].at - startedAt).toBeGreaterThanOrEqual(1000); // not before the lease ran out
  }, 60_000);

  it('keeps a job that runs longer than its lease claimed by its live worker: it runs once and completes', async () => {
    const name = uniqueName('long');
    const lease = { PLINTH_JOB_LEASE_SECONDS: '1' };
    const starts: number[] = [];
    const a = queue(lease);
    const b = queue(lease);
    await a.open();
    await b.open();
    const handler = async (job: Job) => {
      starts.push(job.attempt);
      await sleep(4000); // four leases
    };
    a.register(name, handler);
    b.register(name, handler);
    await a.start();
    await b.start();
    const id = await a.enqueue(database.db, name, {});
    await waitFor('the job to complete', async () => (await stored(id))?.state === 'completed', 30_000);
    expect(starts).toEqual([1]);
  }, 60_000);

  it('close() waits for a running job to finish', async () => {
    const name = uniqueName('graceful');
    let started = false;
    let finished = false;
    const q = queue();
    await q.open();
    q.register(name, async () => {
      started = true;
      await sleep(800);
      finished = true;
    });
    await q.start();
    const id = await q.enqueue(database.db, name, {});
    await waitFor('the job to start', () => started);
    await q.close();
    expect(finished).toBe(true);
    expect((await stored(id))?.state).toBe('completed');
  });

  it('close() releases a job still running at the timeout, and it runs again elsewhere', async () => {
    const name = uniqueName('released');
    let unblock = () => {};
    let started = false;
    const first = queue({}, { closeTimeoutMs: 1000 });
    await first.open();
    first.register(name, async () => {
      started = true;
      await new Promise<void>((resolve) => (unblock = resolve));
    });
    await first.start();
    const id = await first.enqueue(database.db, name, { again: true });
    await waitFor('the job to start', () => started);

    const t0 = Date.now();
    await first.close();
    const took = Date.now() - t0;
    // It waited out closeTimeoutMs for the running job; had it waited for the job itself, close() would never return.
    expect(took).toBeGreaterThanOrEqual(900);
    expect((await stored(id))?.state).toBe('queued');

    const runs: Job[] = [];
    const second = queue();
    await second.open();
    second.register(name, async (job) => void runs.push(job));
    await second.start();
    await waitFor('the released job to run again', () => runs.length === 1, 15_000);
    expect(runs[0]).toMatchObject({ id, name, data: { again: true } });
    await waitFor('the job to complete', async () => (await stored(id))?.state === 'completed');

    // The abandoned first run finishing late must not disturb the finished job.
    unblock();
    await sleep(300);
    expect((await stored(id))?.state).toBe('completed');
    expect(runs).toHaveLength(1);
  });
});
