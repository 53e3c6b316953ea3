import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';
import { beaconOf, fromShop, post, routedOnly, serve, type Served } from '../../test/beacon-lane.js';
import { deviceOf } from './beacon.service.js';

/** Section 18's events, through the lane and the router alike, and the usage splits they feed. */
const UA = {
  desktop: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
  mobile: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
  android: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36',
  tablet: 'Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
};

const mixed = (product: string) => [
  { type: 'view', product_id: product, viewer_id: 'v1', experiment_id: 'expt_a', arm: '3d' },
  { type: 'interaction', product_id: product, viewer_id: 'v1', experiment_id: 'expt_a', arm: '3d' },
  { type: 'variant_change', product_id: product, viewer_id: 'v1' },
  { type: 'hotspot_open', product_id: product, viewer_id: 'v1' },
  { type: 'ar_cta_tap', product_id: product, viewer_id: 'v1' },
  { type: 'conversion', product_id: product, viewer_id: 'v1', name: 'add_to_cart', value: 19.5, currency: 'EUR', experiment_id: 'expt_a', arm: '3d' },
];

describe('engagement events and conversions', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
  });
  afterAll(async () => s?.t.close());

  const usage = async (key: string, qs = '') => {
    const res = await s.t.app.inject({ method: 'GET', url: `/v1/usage?${qs}`, headers: bearer(key) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const stored = (orgId: string) =>
    s.t.deps.database.db
      .selectFrom('beacon_events')
      .select(['subject_id', 'type', 'internal', 'viewer_id', 'name', 'value', 'currency', 'experiment_id', 'arm', 'device', 'referrer'])
      .where('org_id', '=', orgId)
      .orderBy('id')
      .execute();

  it('the lane and the router store every new type with the same fields, and count them alike', async () => {
    const org = await s.t.bootstrap();
    const product = await seedProduct(s.t, org.org_id, { title: 'Chair' });
    const headers = fromShop(org.publishable_key, { 'user-agent': UA.mobile });
    const routed = await routedOnly(s, headers, beaconOf(mixed(product)));
    expect(routed.statusCode, routed.body).toBe(202);
    const lane = await post(s, headers, beaconOf(mixed(product)));
    expect(lane.byLane).toBe(1);
    expect(lane.status).toBe(202);
    expect(lane.body.toString()).toBe(routed.body);

    const rows = await stored(org.org_id);
    expect(rows).toHaveLength(12);
    const strip = (r: (typeof rows)[number]) => ({ ...r, value: r.value === null ? null : Number(r.value) });
    expect(rows.slice(6).map(strip)).toEqual(rows.slice(0, 6).map(strip));
    expect(strip(rows[5])).toEqual({
      subject_id: product,
      type: 'conversion',
      internal: 0,
      viewer_id: 'v1',
      name: 'add_to_cart',
      value: 19.5,
      currency: 'EUR',
      experiment_id: 'expt_a',
      arm: '3d',
      device: 'mobile',
      referrer: 'https://shop.example',
    });

    const body = await usage(org.secret_key, 'group_by=product');
    const twice = { view: 2, ar_enter: 0, ar_session_ended: 0, interaction: 2, variant_change: 2, hotspot_open: 2, ar_cta_tap: 2, conversion: 2 };
    expect(body.totals).toEqual(twice);
    expect(body.by_product).toEqual([{ product_id: product, title: 'Chair', ...twice }]);
    expect(body.buckets.reduce((n: number, b: { conversion: number }) => n + b.conversion, 0)).toBe(2);
    const only = await usage(org.secret_key, 'event_type=conversion');
    expect(only.totals).toEqual({ ...Object.fromEntries(Object.keys(twice).map((k) => [k, 0])), conversion: 2 });
  });

  it('group_by=device and group_by=referrer split a publishable key’s events by User-Agent and page origin', async () => {
    const org = await s.t.bootstrap();
    const send = async (ua: string, origin: string, n: number) => {
      const res = await s.t.app.inject({
        method: 'POST',
        url: '/v1/beacon',
        headers: { ...bearer(org.publishable_key), origin, 'user-agent': ua },
        payload: { events: Array.from({ length: n }, () => ({ type: 'view', product_id: 'prod_x' })) },
      });
      expect(res.statusCode, res.body).toBe(202);
    };
    await send(UA.desktop, 'https://shop.example', 3);
    await send(UA.mobile, 'https://shop.example', 2);
    await send(UA.android, 'https://eu.brand.example', 4);
    await send(UA.tablet, 'https://eu.brand.example', 1);
    // A secret key's events are internal and carry neither: no split counts them.
    await s.t.app.inject({ method: 'POST', url: '/v1/beacon', headers: { ...bearer(org.secret_key), 'user-agent': UA.desktop }, payload: { events: [{ type: 'view', product_id: 'x' }] } });

    const devices = await usage(org.secret_key, 'group_by=device');
    expect(devices.by_device.map((d: { device: string; view: number }) => [d.device, d.view])).toEqual([
      ['mobile', 6],
      ['desktop', 3],
      ['tablet', 1],
    ]);
    expect(devices.by_product).toBeUndefined();
    const referrers = await usage(org.secret_key, 'group_by=referrer&granularity=hour&start=' + new Date(Date.now() - 3_600_000).toISOString());
    expect(referrers.by_referrer.map((d: { referrer: string; view: number }) => [d.referrer, d.view])).toEqual([
      ['https://eu.brand.example', 5],
      ['https://shop.example', 5],
    ]);
    const withInternal = await usage(org.secret_key, 'group_by=device&include_internal=true');
    expect(withInternal.by_device.find((d: { device: string }) => d.device === 'desktop').view).toBe(3);
  });

  it('POST /v1/conversions: a server’s conversion, shopper traffic, with or without a product', async () => {
    const org = await s.t.bootstrap();
    const product = await seedProduct(s.t, org.org_id, { title: 'Lamp' });
    const convert = (payload: object) => s.t.app.inject({ method: 'POST', url: '/v1/conversions', headers: bearer(org.secret_key), payload });
    const a = await convert({ viewer_id: 'v_9', name: 'purchase', value: 120, currency: 'USD', product_id: product });
    expect(a.statusCode, a.body).toBe(202);
    expect(a.json()).toEqual({ object: 'beacon_receipt', accepted: 1, clamped: 0 });
    expect((await convert({ viewer_id: 'v_9', name: 'lead' })).statusCode).toBe(202);

    const body = await usage(org.secret_key, 'group_by=product');
    expect(body.totals.conversion).toBe(2); // not internal: counted without include_internal, once each
    expect(body.by_product).toEqual([expect.objectContaining({ product_id: product, conversion: 1 })]);
    const rows = await stored(org.org_id);
    expect(rows.map((r) => [r.subject_id, r.name, r.internal, r.device])).toEqual([
      [product, 'purchase', 0, null],
      ['', 'lead', 0, null],
    ]);

    const bad = await convert({ viewer_id: 'v_9', name: 'refund' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.code).toBe('validation_failed');
    const missing = await convert({ name: 'purchase' });
    expect(missing.statusCode).toBe(422);
  });

  it('device classes from User-Agents', () => {
    expect(deviceOf(UA.desktop)).toBe('desktop');
    expect(deviceOf(UA.mobile)).toBe('mobile');
    expect(deviceOf(UA.android)).toBe('mobile');
    expect(deviceOf(UA.tablet)).toBe('tablet');
    expect(deviceOf('Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X)')).toBe('tablet');
    expect(deviceOf(undefined)).toBeNull();
  });
});
