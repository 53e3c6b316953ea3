import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { productPhoto } from '../../test/images.js';
import { quoteAndCommit, TEST_ALLOW } from '../../test/products.js';
import { registerIngestJobs } from '../ingest/ingest.jobs.js';
import { registerGenerationJobs } from './generation.jobs.js';

/**
 * A worker that dies in every attempt of a generation (as one killed by a hostile input would) must not
 * leave the product generating forever: once the attempts are used up, the next worker fails the model
 * with processing_limit and refunds its credits.
 */
let t: TestApp;
let web: FixtureServer;
const LEASE = { PLINTH_JOB_LEASE_SECONDS: '2' };

beforeAll(async () => {
  web = await startFixtureServer();
  web.set('/front.jpg', await productPhoto(640, 480), 'image/jpeg');
  t = await createTestApp({ ...TEST_ALLOW, ...LEASE });
  // Only ingestion runs here at first: the generation job is left for the dying workers below.
  registerIngestJobs(t.deps);
  await t.deps.jobs.start();
});

afterAll(async () => {
  await t?.close();
  await web?.close();
});

/** A separate worker process that takes one generate.model attempt and is killed in it. */
async function dieInOneAttempt(n: number) {
  const marker = join(t.config.dataDir, `generate-${n}.started`);
  const script = fileURLToPath(new URL('../../platform/jobs/test-child.mjs', import.meta.url));
  const env = { ...process.env, PLINTH_DATA_DIR: t.config.dataDir, PLINTH_SECRET: 'test-secret-0123456789abcdef', DATABASE_URL: t.config.databaseUrl, LOG_LEVEL: 'silent', PLINTH_JOB_POLL_MS: '50', ...LEASE, JOB_NAME: 'generate.model', MARKER: marker };
  const child = spawn(process.execPath, [script], { env, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    await waitFor(async () => existsSync(marker) || child.exitCode !== null, 60_000, `worker ${n} to start the generation`);
  } finally {
    child.kill('SIGKILL');
  }
  await exited;
  expect(existsSync(marker)).toBe(true);
}

describe('a generation whose worker dies in every attempt', () => {
  it('ends failed with processing_limit and a refund', async () => {
    const org = await t.bootstrap({ credits: 21 });
    const created = await quoteAndCommit(t, org.secret_key, { image_urls: [web.url('/front.jpg')], generate_model: true });
    const get = () => t.app.inject({ method: 'GET', url: `/v1/products/${created.id}`, headers: bearer(org.secret_key) }).then((r) => r.json());
    await waitFor(async () => (await get()).images_status === 'ready', 60_000, 'the images');

    await dieInOneAttempt(1);
    await dieInOneAttempt(2); // generate.model allows one retry: both attempts are gone
    expect((await get()).model_status).toBe('queued');

    // A healthy worker takes the job up again; the handler must not run, the failure must be recorded.
    let generated = 0;
    registerGenerationJobs(t.deps, { name: 'never-called', generate: async () => (generated++, Promise.reject(new Error('must not run'))) });
    const p = await waitFor(async () => ((x) => (x.model_status === 'failed' ? x : undefined))(await get()), 60_000, 'the model to fail');
    expect(generated).toBe(0);
    expect(p.error.code).toBe('processing_limit');
    expect(p.step).toBe('failed');
    expect(p.progress).toBeNull();
    const refunds = await t.deps.database.db.selectFrom('credit_ledger').select(['delta', 'ref']).where('org_id', '=', org.org_id).where('reason', '=', 'refund').execute();
    expect(refunds).toEqual([{ delta: 20, ref: created.id }]);
  }, 180_000);
});
