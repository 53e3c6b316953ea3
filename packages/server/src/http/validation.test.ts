import { describe, expect, it } from 'vitest';
import { BeaconBodySchema } from '../modules/analytics/analytics.routes.js';
import { compileBodyValidator, validators } from './validation.js';

const event = { type: 'view', product_id: 'prod_1', viewer_id: 'v_1' };
const conversion = { type: 'conversion', product_id: 'prod_1', viewer_id: 'v_1', name: 'purchase', value: 10, currency: 'EUR', experiment_id: 'expt_1', arm: '3d' };

/** Bodies the lane's check and the router's must judge alike: every literal union of the beacon, in and out of it. */
const bodies: Array<[string, unknown]> = [
  ['a view', { events: [event] }],
  ['each event type', { events: ['view', 'ar_enter', 'ar_session_ended', 'interaction', 'variant_change', 'hotspot_open', 'ar_cta_tap'].map((type) => ({ ...event, type })) }],
  ['a conversion in an arm', { events: [conversion] }],
  ['the poster arm', { events: [{ ...event, experiment_id: 'expt_1', arm: 'poster' }] }],
  ['an unknown type', { events: [{ ...event, type: 'click' }] }],
  ['a type of another case', { events: [{ ...event, type: 'View' }] }],
  ['a type that is a number', { events: [{ ...event, type: 1 }] }],
  ['an unknown arm', { events: [{ ...event, experiment_id: 'expt_1', arm: 'vr' }] }],
  ['an unknown conversion name', { events: [{ ...conversion, name: 'refund' }] }],
  ['a conversion name that is null', { events: [{ ...conversion, name: null }] }],
  ['an extra field', { events: [{ ...event, colour: 'red' }] }],
  ['a bad currency', { events: [{ ...conversion, currency: 'eur' }] }],
  ['no events', { events: [] }],
];

describe('compileBodyValidator', () => {
  const routed = validators()({ schema: BeaconBodySchema, httpPart: 'body' }) as unknown as (body: unknown) => boolean;
  const lane = compileBodyValidator(BeaconBodySchema);

  it.each(bodies)('passes exactly what the router passes: %s', (_name, body) => {
    expect(lane(structuredClone(body))).toBe(routed(structuredClone(body)));
  });

  it('passes the valid bodies and refuses the others', () => {
    expect(bodies.filter(([, body]) => lane(body)).map(([name]) => name)).toEqual(['a view', 'each event type', 'a conversion in an arm', 'the poster arm']);
  });
});
