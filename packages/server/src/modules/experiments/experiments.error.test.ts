import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, send, type TestApp } from '../../test/app.js';
import { expectEnvelope, snapshot } from '../../test/checks.js';
import { startExperiment } from '../../test/experiments.js';
import { seedProduct } from '../../test/products.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const unknown = 'expt_00000000000000000000000000';
const start = (payload: object) => send(t, 'POST', '/v1/experiments', payload);
const read = async (id: string) => (await send(t, 'GET', `/v1/experiments/${id}`)).json();

describe('experiments: refusals change nothing', () => {
  it("arms that do not add up to 1, or weights outside (0, 1), are 422; no experiment is made", async () => {
    const productId = await seedProduct(t, t.org.org_id);
    const before = await snapshot(t, ['experiments']);
    const sum = expectEnvelope(await start({ name: 'a', arms: { '3d': 0.5, poster: 0.6 }, product_ids: [productId] }), 422, 'validation_failed');
    expect(sum.details.errors[0].path).toBe('/arms');
    expectEnvelope(await start({ name: 'b', arms: { '3d': 1, poster: 0 }, product_ids: [productId] }), 422, 'validation_failed');
    expectEnvelope(await start({ name: 'c', arms: { '3d': 0.5, poster: 0.5, video: 0.1 }, product_ids: [productId] }), 422, 'validation_failed');
    expectEnvelope(await start({ arms: { '3d': 0.5, poster: 0.5 }, product_ids: [productId] }), 422, 'validation_failed');
    expect(await snapshot(t, ['experiments'])).toEqual(before);
  });

  it('a product of no one (or of another organization) is 422 naming its index', async () => {
    const theirs = await seedProduct(t, (await t.bootstrap()).org_id);
    const mine = await seedProduct(t, t.org.org_id);
    const before = await snapshot(t, ['experiments']);
    const error = expectEnvelope(await start({ name: 'x', arms: { '3d': 0.5, poster: 0.5 }, product_ids: [mine, theirs] }), 422, 'validation_failed');
    expect(error.details.errors).toEqual([{ path: '/product_ids/1', message: `no product ${theirs} in this organization` }]);
    expect(await snapshot(t, ['experiments'])).toEqual(before);
  });

  it('a second running experiment on the same product is 409 experiment_running', async () => {
    const productId = await seedProduct(t, t.org.org_id);
    const running = await startExperiment(t, t.org.secret_key, { name: 'first', product_ids: [productId] });
    const before = await snapshot(t, ['experiments']);
    const error = expectEnvelope(await start({ name: 'second', arms: { '3d': 0.5, poster: 0.5 }, product_ids: [productId] }), 409, 'conflict');
    expect(error.details.reason).toBe('experiment_running');
    expect(await snapshot(t, ['experiments'])).toEqual(before);
    expect((await read(running.id)).status).toBe('running');
  });

  it('stopping twice is 409 experiment_stopped, and the first stop time stays', async () => {
    const productId = await seedProduct(t, t.org.org_id);
    const e = await startExperiment(t, t.org.secret_key, { name: 'stop twice', product_ids: [productId] });
    const first = await send(t, 'POST', `/v1/experiments/${e.id}/stop`);
    expect(first.statusCode).toBe(200);
    expect(expectEnvelope(await send(t, 'POST', `/v1/experiments/${e.id}/stop`), 409, 'conflict').details.reason).toBe('experiment_stopped');
    expect((await read(e.id)).stopped_at).toBe(first.json().stopped_at);
  });

  it('a rename to nothing is 422; an unknown id is 404 on every id route', async () => {
    const productId = await seedProduct(t, t.org.org_id);
    const e = await startExperiment(t, t.org.secret_key, { name: 'kept', product_ids: [productId] });
    expectEnvelope(await send(t, 'PATCH', `/v1/experiments/${e.id}`, { name: '' }), 422, 'validation_failed');
    expectEnvelope(await send(t, 'PATCH', `/v1/experiments/${e.id}`, { name: 'x', status: 'stopped' }), 422, 'validation_failed');
    expect((await read(e.id)).name).toBe('kept');
    expectEnvelope(await send(t, 'GET', `/v1/experiments/${unknown}`), 404, 'not_found');
    expectEnvelope(await send(t, 'PATCH', `/v1/experiments/${unknown}`, { name: 'x' }), 404, 'not_found');
    expectEnvelope(await send(t, 'POST', `/v1/experiments/${unknown}/stop`), 404, 'not_found');
    expectEnvelope(await send(t, 'DELETE', `/v1/experiments/${unknown}`), 404, 'not_found');
    expectEnvelope(await send(t, 'GET', `/v1/experiments/${unknown}/results`), 404, 'not_found');
  });

  it('a bad status filter is 422', async () => {
    expectEnvelope(await send(t, 'GET', '/v1/experiments?status=paused'), 422, 'validation_failed');
  });
});
