import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';
import { AppError } from '../../core/errors.js';
import {
  imagesIngested,
  MODEL_TRANSITIONS,
  modelFailed,
  modelGenerating,
  modelQueued,
  modelReady,
  rendersReady,
  reportProgress,
} from './products.lifecycle.js';
import { loadProduct } from './products.repo.js';
import type { ProductRecord, StoredModel } from './products.types.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t?.close();
});

const load = async (id: string) => (await loadProduct(t.deps.database.db, id))!;
const db = () => t.deps.database.db;
const model = (p: ProductRecord): StoredModel => ({
  glbKey: `orgs/${p.orgId}/products/${p.id}/pub/new.glb`,
  usdzKey: null,
  decision: 'pending',
  dimensions: { width: 1, height: 1, depth: 1 },
  triangles: 12,
  bytes: 100,
  settings: {},
  origin: 'generated',
});

/** The refusal is an internal error naming the move, and nothing is written. */
async function expectRefused(id: string, change: () => Promise<unknown>, from: string, to: string) {
  const before = await load(id);
  const err = await change().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe('internal_error');
  expect((err as AppError).details).toMatchObject({ reason: 'refused_transition', from, to });
  const after = await load(id);
  expect({ model: after.modelStatus, images: after.imagesStatus, step: after.step, progress: after.progress }).toEqual({
    model: before.modelStatus,
    images: before.imagesStatus,
    step: before.step,
    progress: before.progress,
  });
}

describe('refused transitions', () => {
  it('a ready model does not start generating without a new order', async () => {
    const id = await seedProduct(t, t.org.org_id, { modelStatus: 'ready' });
    await expectRefused(id, async () => modelGenerating(t.deps, db(), await load(id)), 'ready', 'generating');
  });

  it('a failed model never becomes ready without a new order', async () => {
    const id = await seedProduct(t, t.org.org_id, { modelStatus: 'failed' });
    const p = await load(id);
    await expectRefused(id, () => modelReady(t.deps, db(), p, model(p)), 'failed', 'ready');
  });

  it('a model that was never ordered is not made ready', async () => {
    const id = await seedProduct(t, t.org.org_id, { modelStatus: 'none' });
    const p = await load(id);
    await expectRefused(id, () => modelReady(t.deps, db(), p, model(p)), 'none', 'ready');
  });

  it('ready images are not made ready again by a stray render job', async () => {
    const id = await seedProduct(t, t.org.org_id, { imagesStatus: 'ready' });
    await expectRefused(id, async () => rendersReady(t.deps, db(), await load(id), null), 'ready', 'ready');
  });

  it('images already failed are not marked ingested', async () => {
    const id = await seedProduct(t, t.org.org_id, { imagesStatus: 'failed', modelStatus: 'none' });
    await expectRefused(id, async () => imagesIngested(t.deps, db(), await load(id), null), 'failed', 'ready');
  });

  it('a new order moves a failed model back to queued, and only that way', async () => {
    expect(MODEL_TRANSITIONS.failed).toEqual(['queued']);
    const id = await seedProduct(t, t.org.org_id, { modelStatus: 'failed' });
    await modelQueued(t.deps, db(), await load(id));
    expect((await load(id)).modelStatus).toBe('queued');
  });
});

describe('progress and failure', () => {
  it('progress only moves forward, and stops at the end', async () => {
    const id = await seedProduct(t, t.org.org_id, { modelStatus: 'queued' });
    expect(await modelGenerating(t.deps, db(), await load(id))).toBe(true);
    expect((await load(id)).progress).toBe(0);
    await reportProgress(t.deps, id, 50, 'carving');
    await reportProgress(t.deps, id, 30, 'loading_views'); // a retried attempt starting over
    expect(await load(id)).toMatchObject({ progress: 50, step: 'carving' });
    await reportProgress(t.deps, id, 70, 'texturing');
    const p = await load(id);
    expect(await modelReady(t.deps, db(), p, model(p))).toBe(true);
    await reportProgress(t.deps, id, 90, 'writing_model'); // a late report from a lost attempt
    expect(await load(id)).toMatchObject({ modelStatus: 'ready', progress: 100, step: 'done' });
  });

  it('a failed model refunds once, however often its failure is reported', async () => {
    const org = await t.bootstrap({ credits: 0 });
    const id = await seedProduct(t, org.org_id, { modelStatus: 'generating' });
    const error = { code: 'processing_limit', message: 'stopped' };
    expect(await modelFailed(t.deps, db(), await load(id), error, 20)).toBe(true);
    expect(await modelFailed(t.deps, db(), await load(id), error, 20)).toBe(false);
    expect(await load(id)).toMatchObject({ modelStatus: 'failed', error, step: 'failed', progress: null });
    const ledger = await db().selectFrom('credit_ledger').select(['delta', 'reason', 'ref']).where('org_id', '=', org.org_id).where('reason', '=', 'refund').execute();
    expect(ledger).toEqual([{ delta: 20, reason: 'refund', ref: id }]);
  });

  it('a writer holding a stale copy writes nothing', async () => {
    const id = await seedProduct(t, t.org.org_id, { modelStatus: 'generating' });
    const stale = await load(id);
    expect(await modelFailed(t.deps, db(), stale, { code: 'x', message: 'first' }, 0)).toBe(true);
    expect(await modelReady(t.deps, db(), stale, model(stale))).toBe(false);
    expect((await load(id)).modelStatus).toBe('failed');
  });
});
