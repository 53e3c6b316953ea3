import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../logger.js';
import { freshPostgresDatabase, TEST_BACKEND, tempDir } from '../../test/env.js';
import { openDatabase, type Database } from '../db/index.js';
import { defineJob, definedJobNames, JobDeadlineExceeded, Jobs, type JobFailure, type JobRun } from './define.js';
import { createJobQueue } from './index.js';

const logger = createLogger('silent');
const dir = tempDir('plinth-define-');
let url = join(dir.path, 'jobs.db');
let dropDatabase = async () => {};
let database: Database;
const open: Jobs[] = [];
let counter = 0;

const uniqueName = (label: string) => `typed-${label}-${++counter}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PLINTH_DATA_DIR: dir.path,
    PLINTH_SECRET: 'test-secret-0123456789abcdef',
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    PLINTH_JOB_POLL_MS: '50',
    PLINTH_JOB_LEASE_SECONDS: '2',
    ...extra,
  };
}

async function jobs(): Promise<Jobs> {
  const j = new Jobs(createJobQueue(loadConfig(env()), database, logger), logger);
  open.push(j);
  await j.open();
  return j;
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

beforeAll(async () => {
  if (TEST_BACKEND === 'postgres') {
    const pg = await freshPostgresDatabase();
    url = pg.url;
    dropDatabase = pg.drop;
  }
  database = openDatabase(url);
  await database.migrate();
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((j) => j.close()));
});

afterAll(async () => {
  await database.close();
  await dropDatabase().catch(() => {});
  dir.remove();
});

/** A job whose handler and failure hook record what they saw. */
function recorded(
  name: string,
  opts: { retryLimit: number; fail?: (run: JobRun) => Error | null; permanent?: (err: unknown) => boolean; hang?: boolean; deadlineSeconds?: number },
) {
  const runs: JobRun[] = [];
  const data: unknown[] = [];
  const failures: JobFailure[] = [];
  const def = defineJob({
    name,
    payload: Type.Object({ product_id: Type.String(), credits: Type.Integer({ minimum: 0 }) }),
    retryLimit: opts.retryLimit,
    permanent: opts.permanent,
    deadlineSeconds: opts.deadlineSeconds,
    handle: async (_ctx: null, payload, run) => {
      runs.push(run);
      data.push(payload);
      if (opts.hang) await new Promise(() => {});
      const err = opts.fail?.(run);
      if (err) throw err;
    },
    onFailed: async (_ctx: null, _payload, failure) => void failures.push(failure),
  });
  return { def, runs, data, failures };
}

describe(`typed job definitions (${TEST_BACKEND})`, () => {
  it('runs the handler with the typed payload; a success calls no failure hook', async () => {
    const j = await jobs();
    const job = recorded(uniqueName('ok'), { retryLimit: 2 });
    j.register(job.def, null);
    await j.start();
    await j.enqueue(database.db, job.def, { product_id: 'prod_1', credits: 20 });
    await waitFor('the job to run', () => job.runs.length === 1);
    expect(job.data).toEqual([{ product_id: 'prod_1', credits: 20 }]);
    expect(job.runs[0]).toMatchObject({ attempt: 1, last: false });
    expect(job.failures).toEqual([]);
    expect(definedJobNames()).toContain(job.def.name);
  });

  it('a job that throws on every attempt runs its retries, then its failure hook once with the last error', async () => {
    const j = await jobs();
    const job = recorded(uniqueName('always-throws'), { retryLimit: 1, fail: (run) => new Error(`attempt ${run.attempt} broke`) });
    j.register(job.def, null);
    await j.start();
    await j.enqueue(database.db, job.def, { product_id: 'prod_2', credits: 5 });
    await waitFor('the failure hook', () => job.failures.length > 0);
    await sleep(1500); // a further attempt or a second hook call would show up here
    expect(job.runs.map((r) => [r.attempt, r.last])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(job.failures).toHaveLength(1);
    const failure = job.failures[0];
    expect(failure.kind).toBe('error');
    expect(failure.kind === 'error' && (failure.error as Error).message).toBe('attempt 2 broke');
  });

  it('a permanent failure is not retried', async () => {
    const j = await jobs();
    class BadInput extends Error {}
    const job = recorded(uniqueName('permanent'), { retryLimit: 3, fail: () => new BadInput('never works'), permanent: (e) => e instanceof BadInput });
    j.register(job.def, null);
    await j.start();
    await j.enqueue(database.db, job.def, { product_id: 'prod_3', credits: 0 });
    await waitFor('the failure hook', () => job.failures.length > 0);
    await sleep(1500);
    expect(job.runs).toHaveLength(1);
    expect(job.failures).toHaveLength(1);
  });

  it('an attempt that never finishes fails at its deadline, is retried, and ends in the failure hook', async () => {
    const j = await jobs();
    const job = recorded(uniqueName('hangs'), { retryLimit: 1, hang: true, deadlineSeconds: 0.2 });
    j.register(job.def, null);
    await j.start();
    await j.enqueue(database.db, job.def, { product_id: 'prod_5', credits: 0 });
    await waitFor('the failure hook', () => job.failures.length > 0);
    expect(job.runs.map((r) => r.attempt)).toEqual([1, 2]);
    const failure = job.failures[0];
    expect(failure.kind === 'error' && failure.error).toBeInstanceOf(JobDeadlineExceeded);
  });

  it('refuses a payload that does not match its schema, before anything is written', async () => {
    const j = await jobs();
    const job = recorded(uniqueName('schema'), { retryLimit: 0 });
    // A producer that slipped past the compiler (an `as` cast, a JSON body) is still caught at the door.
    const bad = { product_id: 42 } as unknown as { product_id: string; credits: number };
    await expect(j.enqueue(database.db, job.def, bad)).rejects.toThrow(/payload/);
  });

  it('a worker killed during the last attempt ends in the failure hook with worker_lost', async () => {
    const name = uniqueName('killed');
    const job = recorded(name, { retryLimit: 0 });
    const j = await jobs();
    await j.declare([name]);
    await j.enqueue(database.db, job.def, { product_id: 'prod_4', credits: 20 });

    // A worker process takes the only attempt and dies in it (as a media crash or an OOM kill would).
    const marker = join(dir.path, `${name}.started`);
    const script = fileURLToPath(new URL('./test-child.mjs', import.meta.url));
    const child = spawn(process.execPath, [script], { env: { ...process.env, ...env(), JOB_NAME: name, MARKER: marker }, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await waitFor('the child to start the job', () => existsSync(marker) || child.exitCode !== null);
    } finally {
      child.kill('SIGKILL');
    }
    await exited;
    expect(existsSync(marker)).toBe(true);

    j.register(job.def, null);
    await j.start();
    await waitFor('the failure hook', () => job.failures.length > 0, 60_000);
    expect(job.runs).toEqual([]); // the handler never ran again: the attempt it had was used up
    expect(job.failures).toEqual([{ kind: 'worker_lost' }]);
  }, 90_000);
});
