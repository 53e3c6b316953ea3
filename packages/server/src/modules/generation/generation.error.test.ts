import type { Generator } from '@plinth/media';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { productPhoto } from '../../test/images.js';
import { quoteAndCommit, TEST_ALLOW } from '../../test/products.js';
import { registerIngestJobs } from '../ingest/ingest.jobs.js';
import { registerProductJobs } from '../products/products.jobs.js';
import { registerGenerationJobs } from './generation.jobs.js';

/**
 * The last failure of a job ends the product's wait: a generation that fails every attempt (here an
 * external 3D provider that is down, the one double these tests allow) leaves the product failed with
 * a reason and its credits refunded, never queued or generating forever.
 */
let t: TestApp;
let web: FixtureServer;
let calls = 0;

const providerDown: Generator = {
  name: 'provider-down',
  async generate() {
    calls++;
    throw new Error('the 3D provider answered 503');
  },
};

beforeAll(async () => {
  web = await startFixtureServer();
  web.set('/front.jpg', await productPhoto(640, 480), 'image/jpeg');
  t = await createTestApp(TEST_ALLOW);
  registerIngestJobs(t.deps);
  registerProductJobs(t.deps);
  registerGenerationJobs(t.deps, providerDown);
  await t.deps.jobs.start();
});

afterAll(async () => {
  await t?.close();
  await web?.close();
});

describe('a generation that fails its last attempt', () => {
  it('fails the model with a reason and refunds the credits through the ledger', async () => {
    const org = await t.bootstrap({ credits: 21 });
    const created = await quoteAndCommit(t, org.secret_key, { image_urls: [web.url('/front.jpg')], generate_model: true });
    const product = await waitFor(async () => {
      const p = (await t.app.inject({ method: 'GET', url: `/v1/products/${created.id}`, headers: bearer(org.secret_key) })).json();
      return p.model_status === 'failed' ? p : undefined;
    }, 90_000, 'the model to fail');

    expect(calls).toBe(2); // the first attempt and its one retry
    expect(product.images_status).toBe('ready'); // the photos were fine; only the model failed
    expect(product.error).toEqual({ code: 'internal_error', message: 'Processing failed unexpectedly.' });
    expect(product.step).toBe('failed');
    expect(product.progress).toBeNull();
    expect(product.model_url).toBeNull();

    const ledger = await t.deps.database.db
      .selectFrom('credit_ledger')
      .select(['delta', 'reason', 'ref', 'balance_after'])
      .where('org_id', '=', org.org_id)
      .orderBy('id')
      .execute();
    expect(ledger.map(({ delta, reason }) => ({ delta, reason }))).toEqual([
      { delta: 21, reason: 'grant' },
      { delta: -21, reason: 'create' },
      { delta: 20, reason: 'refund' },
    ]);
    expect(ledger[2]).toMatchObject({ ref: created.id, balance_after: 20 });

    const events = await t.deps.database.db.selectFrom('events').select('type').where('org_id', '=', org.org_id).execute();
    expect(events.map((e) => e.type)).toContain('product.model.failed');
  }, 120_000);
});
