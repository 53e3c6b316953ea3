import type { Generator } from '@plinth/media';
import { boxDocument, glbBytes } from '@plinth/media/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { productPhoto } from '../../test/images.js';
import { quoteAndCommit, TEST_ALLOW } from '../../test/products.js';
import { registerGenerationJobs } from '../generation/generation.jobs.js';
import { registerIngestJobs } from '../ingest/ingest.jobs.js';
import { registerProductJobs } from '../products/products.jobs.js';
import { loadStepCosts, PRIOR_COSTS, PRIOR_FADES_AFTER, recordStepDurations, StepTimer } from './step-costs.js';

/**
 * A quote's `estimated_seconds` follows what the steps cost on this installation. Durations are
 * injected through the clock (the generator below moves it on as it reports its steps), so nothing
 * here depends on how fast the machine is.
 */
let t: TestApp;
let web: FixtureServer;
let skewMs = 0;
const clock = { now: () => new Date(Date.now() + skewMs) };

/** Seconds each reported step "takes": the clock jumps by this much while it runs. */
const STEP_SECONDS = { finding_cameras: 400, carving: 200, texturing: 100 } as const;

const slowMachine: Generator = {
  name: 'slow-machine',
  async generate(_views, _hints, onProgress) {
    let percent = 0;
    for (const [step, seconds] of Object.entries(STEP_SECONDS)) {
      await onProgress?.((percent += 30), step);
      skewMs += seconds * 1000;
    }
    const doc = boxDocument({ meshSize: [0.2, 0.3, 0.2] }).doc;
    return { glb: await glbBytes(doc), dimensions: { width: 0.2, height: 0.3, depth: 0.2 }, triangles: 12, method: 'visual_hull' as const };
  },
};

beforeAll(async () => {
  web = await startFixtureServer();
  for (let i = 0; i < 8; i++) web.set(`/view-${i}.jpg`, await productPhoto(320, 240, { r: 40 + i * 30, g: 120, b: 180 }), 'image/jpeg');
  t = await createTestApp(TEST_ALLOW, { clock });
  registerIngestJobs(t.deps);
  registerProductJobs(t.deps);
  registerGenerationJobs(t.deps, slowMachine);
  await t.deps.jobs.start();
});

afterAll(async () => {
  await t?.close();
  await web?.close();
});

const views = () => [0, 1, 2, 3, 4, 5, 6, 7].map((i) => web.url(`/view-${i}.jpg`));

async function estimate(body: Record<string, unknown>): Promise<number> {
  const res = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: body });
  expect(res.statusCode).toBe(200);
  return res.json().estimated_seconds;
}

describe('estimated_seconds from measured step costs', () => {
  it('starts from the prior and moves toward what a completed generation measured', { timeout: 120_000 }, async () => {
    const body = { image_urls: views(), capture: { kind: 'walkaround' }, generate_model: true };
    const before = await estimate(body);
    // The prior: 5 s to fetch, 2 s per photo to cut out, then the model's steps (8 photos through COLMAP and stereo).
    expect(before).toBe(Math.round(5 + 8 * PRIOR_COSTS.cutting_out + PRIOR_COSTS.fetching + 8 * PRIOR_COSTS.finding_cameras + PRIOR_COSTS.carving + 8 * PRIOR_COSTS.matching + 8 * PRIOR_COSTS.checking + PRIOR_COSTS.texturing + PRIOR_COSTS.storing_model));

    const created = await quoteAndCommit(t, t.org.secret_key, { image_urls: views(), capture: { kind: 'turntable' }, generate_model: true });
    const product = await waitFor(async () => {
      const p = (await t.app.inject({ method: 'GET', url: `/v1/products/${created.id}`, headers: bearer(t.org.secret_key) })).json();
      return p.model_status === 'ready' || p.model_status === 'failed' ? p : undefined;
    }, 90_000, 'model');
    expect(product.model_status, JSON.stringify(product.error)).toBe('ready');

    const costs = await loadStepCosts(t.deps.database.db);
    // One measurement counts for a third against the prior: 100 s per photo measured, 2.5 s assumed.
    const oneThird = (prior: number, measured: number) => prior + (measured - prior) / PRIOR_FADES_AFTER - 1e-9;
    expect(costs.finding_cameras).toBeGreaterThanOrEqual(oneThird(PRIOR_COSTS.finding_cameras, STEP_SECONDS.finding_cameras / 8));
    expect(costs.finding_cameras).toBeLessThan(oneThird(PRIOR_COSTS.finding_cameras, STEP_SECONDS.finding_cameras / 8) + 5);
    expect(costs.carving).toBeGreaterThanOrEqual(oneThird(PRIOR_COSTS.carving, STEP_SECONDS.carving));
    expect(costs.texturing).toBeGreaterThanOrEqual(oneThird(PRIOR_COSTS.texturing, STEP_SECONDS.texturing));
    // Steps the job went through without the clock jumping were measured too, and are short.
    const rows = await t.deps.database.db.selectFrom('step_costs').select(['step', 'samples']).orderBy('step').execute();
    expect(rows.map((r) => r.step)).toEqual(['carving', 'cutting_out', 'fetching', 'finding_cameras', 'storing_model', 'texturing']);
    expect(rows.every((r) => Number(r.samples) === 1)).toBe(true);

    const after = await estimate(body);
    const measured = 5 + 8 * costs.cutting_out + costs.fetching + 8 * costs.finding_cameras + costs.carving + 8 * costs.matching + 8 * costs.checking + costs.texturing + costs.storing_model;
    expect(after).toBe(Math.round(measured));
    expect(after).toBeGreaterThan(before + 200);
    // The turntable path skips the cameras and stereo, and its estimate says so.
    expect(await estimate({ ...body, capture: { kind: 'turntable' } })).toBe(Math.round(measured - 8 * costs.finding_cameras - 8 * costs.matching));
  });
});

describe('step cost averages', () => {
  it('lose the prior after a few jobs and then follow the recent ones', async () => {
    const app = await createTestApp();
    try {
      const db = app.deps.database.db;
      const at = new Date().toISOString();
      expect(await loadStepCosts(db)).toEqual(PRIOR_COSTS);
      for (let i = 0; i < PRIOR_FADES_AFTER; i++) await recordStepDurations(db, [{ step: 'carving', seconds: 40 }], 10, at);
      expect((await loadStepCosts(db)).carving).toBeCloseTo(40, 6);
      // Per photo: 30 s over 10 photos is 3 s each.
      await recordStepDurations(db, [{ step: 'finding_cameras', seconds: 30 }], 10, at);
      expect((await loadStepCosts(db)).finding_cameras).toBeCloseTo(PRIOR_COSTS.finding_cameras + (3 - PRIOR_COSTS.finding_cameras) / PRIOR_FADES_AFTER, 6);
      // A machine that got slower: the average moves toward the new cost with every job.
      let last = 40;
      for (let i = 0; i < 30; i++) {
        await recordStepDurations(db, [{ step: 'carving', seconds: 100 }], 10, at);
        const now = (await loadStepCosts(db)).carving;
        expect(now).toBeGreaterThan(last);
        last = now;
      }
      expect(last).toBeGreaterThan(90);
      expect(last).toBeLessThan(100);
    } finally {
      await app.close();
    }
  });

  it('time each reported step until the next one, grouping the generator’s finer names', () => {
    let ms = 0;
    const timer = new StepTimer({ now: () => new Date(ms) });
    timer.enter('fetching');
    ms += 1000;
    timer.enter('carving');
    ms += 2000;
    timer.enter('extracting_surface');
    ms += 3000;
    timer.enter('queued'); // a name that is not timed
    ms += 50_000;
    timer.enter('texturing');
    ms += 4000;
    expect(timer.finish()).toEqual([
      { step: 'fetching', seconds: 1 },
      { step: 'carving', seconds: 5 },
      { step: 'texturing', seconds: 4 },
    ]);
  });
});
