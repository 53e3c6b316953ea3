import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { seedImages, seedProduct } from '../../test/products.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const order = (id: string) => t.app.inject({ method: 'POST', url: `/v1/products/${id}/order`, headers: bearer(t.org.secret_key) });
const commit = (token: string) => t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { resume_token: token } });

async function imagesOnly(opts: Parameters<typeof seedProduct>[2] = {}) {
  const id = await seedProduct(t, t.org.org_id, { modelStatus: 'none', imagesStatus: 'ready', ...opts });
  await seedImages(t, id, t.org.org_id, 2);
  return id;
}

describe('order: every refusal reason is reachable', () => {
  it.each([
    ['no_analysis', () => imagesOnly({ analysis: 'pending' })],
    ['generating', () => imagesOnly({ modelStatus: 'generating' })],
    ['generating', () => imagesOnly({ modelStatus: 'queued' })],
    ['images_ordered', () => seedProduct(t, t.org.org_id, { imagesStatus: 'ordered' })],
    ['model_exists', () => imagesOnly({ modelStatus: 'ready' })],
    ['model_failed', () => imagesOnly({ modelStatus: 'failed' })],
  ] as const)('409 %s', async (reason, make) => {
    const res = await order(await make());
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('conflict');
    expect(res.json().error.details.reason).toBe(reason);
  });

  it('a product still ingesting its images is generating', async () => {
    const id = await seedProduct(t, t.org.org_id, { modelStatus: 'none', imagesStatus: 'ingesting', analysis: 'pending' });
    expect((await order(id)).json().error.details.reason).toBe('generating');
  });
});

describe('order: quote and commit', () => {
  it('an images-only product quotes a model; the commit queues generation and debits once', async () => {
    const id = await imagesOnly();
    const q = await order(id);
    expect(q.statusCode, q.body).toBe(200);
    expect(q.json().operation).toBe('order_model');
    expect(q.json().product_id).toBe(id);
    expect(q.json().credits).toBe(20);
    const before = (await t.deps.database.db.selectFrom('organizations').select('credit_balance').where('id', '=', t.org.org_id).executeTakeFirstOrThrow()).credit_balance;
    const c = await commit(q.json().resume_token);
    expect(c.statusCode, c.body).toBe(202);
    expect(c.json().id).toBe(id);
    expect(c.json().model_status).toBe('queued');
    const after = (await t.deps.database.db.selectFrom('organizations').select('credit_balance').where('id', '=', t.org.org_id).executeTakeFirstOrThrow()).credit_balance;
    expect(before - after).toBe(20);
    expect((await commit(q.json().resume_token)).statusCode).toBe(409);
    expect((await order(id)).json().error.details.reason).toBe('generating');
  });

  it('a model-only product quotes renders; the commit marks images ordered', async () => {
    const id = await seedProduct(t, t.org.org_id);
    const q = await order(id);
    expect(q.json().operation).toBe('order_renders');
    const c = await commit(q.json().resume_token);
    expect(c.statusCode).toBe(202);
    expect(c.json().images_status).toBe('ordered');
    expect((await order(id)).json().error.details.reason).toBe('images_ordered');
  });

  it('a product that moved on since the quote refuses the commit', async () => {
    const id = await imagesOnly();
    const q = (await order(id)).json();
    await t.deps.database.db.updateTable('products').set({ model_status: 'failed' }).where('id', '=', id).execute();
    const c = await commit(q.resume_token);
    expect(c.statusCode).toBe(409);
    expect(c.json().error.details.reason).toBe('model_failed');
  });
});
