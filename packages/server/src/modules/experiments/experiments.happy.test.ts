import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';
import { relativeLift, twoProportionPValue, wilsonInterval } from './experiments.stats.js';
import { SHOP, shopBeacon, startExperiment } from '../../test/experiments.js';

describe('experiments', () => {
  let t: TestApp;
  let products: string[];
  beforeAll(async () => {
    t = await createTestApp();
    products = [];
    for (let i = 0; i < 4; i++) products.push(await seedProduct(t, t.org.org_id, { status: 'published', title: `P${i}` }));
  });
  afterAll(async () => t?.close());

  const key = () => t.org.secret_key;
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: bearer(key()), ...(payload && { payload }) });
  const embed = (id: string) => t.app.inject({ method: 'GET', url: `/embed/products/${id}`, headers: { ...bearer(t.org.publishable_key), origin: SHOP } });

  it('create, read, list, rename; a product is in at most one running experiment', async () => {
    const a = await startExperiment(t, key(), { name: 'Chairs', product_ids: [products[0], products[1], products[0]] });
    expect(a).toMatchObject({ object: 'experiment', name: 'Chairs', status: 'running', arms: { '3d': 0.5, poster: 0.5 }, product_ids: [products[0], products[1]], stopped_at: null });
    expect(a.id).toMatch(/^expt_/);

    const clash = await call('POST', '/v1/experiments', { name: 'Again', product_ids: [products[1], products[2]], arms: { '3d': 0.5, poster: 0.5 } });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error).toMatchObject({ code: 'conflict', details: { reason: 'experiment_running', experiment_id: a.id, product_ids: [products[1]] } });
    const everything = await call('POST', '/v1/experiments', { name: 'All', arms: { '3d': 0.7, poster: 0.3 } });
    expect(everything.statusCode).toBe(409);
    expect(everything.json().error.details.reason).toBe('experiment_running');

    const b = await startExperiment(t, key(), { name: 'Lamps', product_ids: [products[2]], arms: { '3d': 0.25, poster: 0.75 } });
    expect((await call('GET', `/v1/experiments/${b.id}`)).json()).toEqual(b);
    const renamed = await call('PATCH', `/v1/experiments/${b.id}`, { name: 'Lamps (spring)' });
    expect(renamed.json().name).toBe('Lamps (spring)');
    const list = (await call('GET', '/v1/experiments?status=running')).json();
    expect(list.data.map((e: { id: string }) => e.id)).toEqual([b.id, a.id]);
    expect(list.total).toBe(2);

    // The embed tells the element; a product outside every running experiment gets null.
    expect((await embed(products[0])).json().experiment).toEqual({ id: a.id, arms: { '3d': 0.5, poster: 0.5 } });
    expect((await embed(products[2])).json().experiment).toEqual({ id: b.id, arms: { '3d': 0.25, poster: 0.75 } });
    expect((await embed(products[3])).json().experiment).toBeNull();

    expect((await call('DELETE', `/v1/experiments/${b.id}`)).json()).toEqual({ object: 'experiment', id: b.id, deleted: true });
    expect((await call('GET', `/v1/experiments/${b.id}`)).statusCode).toBe(404);
    const stopped = await call('POST', `/v1/experiments/${a.id}/stop`);
    expect(stopped.json().status).toBe('stopped');
  });

  it('refuses arms that do not add up to 1, an arm it does not know, and products of no organization of the caller', async () => {
    const sum = await call('POST', '/v1/experiments', { name: 'x', arms: { '3d': 0.5, poster: 0.6 } });
    expect(sum.statusCode).toBe(422);
    expect(sum.json().error.details.errors[0].path).toBe('/arms');
    const arm = await call('POST', '/v1/experiments', { name: 'x', arms: { '3d': 0.5, video: 0.5 } });
    expect(arm.statusCode).toBe(422);
    const other = await t.bootstrap();
    const foreign = await seedProduct(t, other.org_id);
    const unknown = await call('POST', '/v1/experiments', { name: 'x', product_ids: [foreign], arms: { '3d': 0.5, poster: 0.5 } });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.details.errors).toEqual([{ path: '/product_ids/0', message: `no product ${foreign} in this organization` }]);
  });

  it('results come from raw events per viewer; stopping emits experiment.completed with them', async () => {
    const e = await startExperiment(t, key(), { name: 'Sofa', product_ids: [products[3]] });
    const p = products[3];
    const seen = (viewer: string, arm: '3d' | 'poster') => ({ type: 'view', product_id: p, viewer_id: viewer, experiment_id: e.id, arm });
    // 3d: 10 viewers, 4 convert (one twice, one from the shop's server); poster: 8 viewers, 1 converts.
    for (let i = 0; i < 10; i++) await shopBeacon(t, t.org.publishable_key, [seen(`d${i}`, '3d'), { ...seen(`d${i}`, '3d'), type: 'interaction' }]);
    for (let i = 0; i < 8; i++) await shopBeacon(t, t.org.publishable_key, [seen(`p${i}`, 'poster')]);
    const conversion = (viewer: string, arm: '3d' | 'poster', value: number) => ({ ...seen(viewer, arm), type: 'conversion', name: 'purchase', value, currency: 'EUR' });
    await shopBeacon(t, t.org.publishable_key, [conversion('d0', '3d', 10), conversion('d0', '3d', 5), conversion('d1', '3d', 20), conversion('d2', '3d', 1)]);
    await shopBeacon(t, t.org.publishable_key, [conversion('p0', 'poster', 7)]);
    const server = await call('POST', '/v1/conversions', { viewer_id: 'd3', name: 'purchase', value: 100, currency: 'EUR' });
    expect(server.statusCode).toBe(202);
    // Neither counts: a viewer never shown the experiment, and internal traffic.
    await call('POST', '/v1/conversions', { viewer_id: 'stranger', name: 'purchase', value: 1 });
    await t.app.inject({ method: 'POST', url: '/v1/beacon', headers: bearer(key()), payload: { events: [seen('staff', 'poster')] } });

    const results = (await call('GET', `/v1/experiments/${e.id}/results`)).json();
    expect(results.arms.map((a: any) => [a.arm, a.viewers, a.converters, a.value])).toEqual([
      ['3d', 10, 4, 136],
      ['poster', 8, 1, 7],
    ]);
    expect(results.arms[0].conversion_rate).toBeCloseTo(0.4, 12);
    expect(results.arms[0].interval).toEqual(wilsonInterval(4, 10));
    expect(results.lift).toEqual(relativeLift(4, 10, 1, 8));
    expect(results.p_value).toBe(twoProportionPValue(4, 10, 1, 8)!.pValue);
    // +220%, but on 18 viewers the interval takes in 0: no verdict.
    expect(results.lift.lower).toBeLessThan(0);
    expect(results.verdict).toBeNull();

    const stop = await call('POST', `/v1/experiments/${e.id}/stop`);
    expect(stop.statusCode).toBe(200);
    expect(stop.json()).toMatchObject({ status: 'stopped', stopped_at: expect.any(String) });
    const again = await call('POST', `/v1/experiments/${e.id}/stop`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.details.reason).toBe('experiment_stopped');
    expect((await embed(p)).json().experiment).toBeNull();

    const events = await t.deps.database.db.selectFrom('events').select(['type', 'data']).where('org_id', '=', t.org.org_id).where('type', '=', 'experiment.completed').execute();
    const completed = events.map((x) => JSON.parse(x.data).object).find((o) => o.id === e.id);
    expect(completed).toMatchObject({ object: 'experiment', status: 'stopped', results: { experiment_id: e.id, arms: [{ arm: '3d', converters: 4 }, { arm: 'poster', converters: 1 }] } });

    // After the stop, conversions no longer count.
    await shopBeacon(t, t.org.publishable_key, [conversion('p1', 'poster', 3)]);
    const after = (await call('GET', `/v1/experiments/${e.id}/results`)).json();
    expect(after.arms[1].converters).toBe(1);
  });

  it('a viewer is one exposure per arm, however many events; one seen in both arms counts in neither; deleting forgets them', async () => {
    const e = await startExperiment(t, key(), { name: 'Lamp', product_ids: [products[1]] });
    const event = (type: string, viewer: string, arm: '3d' | 'poster') => ({ type, product_id: products[1], viewer_id: viewer, experiment_id: e.id, arm });
    const types = ['view', 'interaction', 'variant_change', 'hotspot_open', 'ar_cta_tap', 'ar_enter'];
    await shopBeacon(t, t.org.publishable_key, types.map((type) => event(type, 'one', '3d')));
    await shopBeacon(t, t.org.publishable_key, [event('view', 'one', '3d'), event('view', 'two', 'poster'), event('view', 'both', 'poster')]);
    await shopBeacon(t, t.org.publishable_key, [event('view', 'both', '3d'), { ...event('conversion', 'both', '3d'), name: 'purchase', value: 5 }]);
    // Not exposures: an event without a viewer, and the organization's own traffic.
    await shopBeacon(t, t.org.publishable_key, [{ type: 'view', product_id: products[1], experiment_id: e.id, arm: '3d' }]);
    await t.app.inject({ method: 'POST', url: '/v1/beacon', headers: bearer(key()), payload: { events: [event('view', 'staff', 'poster')] } });

    const exposures = () =>
      t.deps.database.db.selectFrom('experiment_exposures').select(['viewer_id', 'arm']).where('experiment_id', '=', e.id).orderBy('viewer_id').orderBy('arm').execute();
    expect(await exposures()).toEqual([
      { viewer_id: 'both', arm: '3d' },
      { viewer_id: 'both', arm: 'poster' },
      { viewer_id: 'one', arm: '3d' },
      { viewer_id: 'two', arm: 'poster' },
    ]);
    const results = (await call('GET', `/v1/experiments/${e.id}/results`)).json();
    expect(results.arms.map((a: any) => [a.arm, a.viewers, a.converters, a.value])).toEqual([
      ['3d', 1, 0, 0],
      ['poster', 1, 0, 0],
    ]);

    expect((await call('DELETE', `/v1/experiments/${e.id}`)).statusCode).toBe(200);
    expect(await exposures()).toEqual([]);
  });

  it('a verdict when the interval excludes 0', async () => {
    const e = await startExperiment(t, key(), { name: 'Big', product_ids: [products[0]] });
    const events: object[] = [];
    const add = (arm: '3d' | 'poster', viewers: number, converters: number) => {
      for (let i = 0; i < viewers; i++) {
        const base = { product_id: products[0], viewer_id: `${arm}-${e.id}-${i}`, experiment_id: e.id, arm };
        events.push({ ...base, type: 'view' });
        if (i < converters) events.push({ ...base, type: 'conversion', name: 'add_to_cart' });
      }
    };
    add('3d', 120, 60);
    add('poster', 120, 20);
    for (let i = 0; i < events.length; i += 100) await shopBeacon(t, t.org.publishable_key, events.slice(i, i + 100));
    const results = (await call('GET', `/v1/experiments/${e.id}/results`)).json();
    expect(results.lift.estimate).toBeCloseTo(2, 12);
    expect(results.lift.lower).toBeGreaterThan(0);
    expect(results.verdict).toBe('3d_better');
    expect(results.p_value).toBeLessThan(1e-6);
  });
});
