import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { ReachQuery } from '../../core/reach.js';
import { ErrorResponses, Nullable } from '../../http/schemas.js';
import { ARMS, BEACON_TYPES, CONVERSION_NAMES, DEVICES, type Counts, type SegmentUsage, type UsageReport } from './analytics.types.js';
import type { BeaconIntake } from './beacon.service.js';
import { usageReport } from './usage.service.js';

const tags = ['Analytics'];
const EventType = Type.Union(BEACON_TYPES.map((t) => Type.Literal(t)));
const Count = Type.Integer({ minimum: 0 });
const CountFields = Object.fromEntries(BEACON_TYPES.map((t) => [t, Count])) as Record<(typeof BEACON_TYPES)[number], typeof Count>;
const ConversionName = Type.Union(CONVERSION_NAMES.map((n) => Type.Literal(n)), { description: 'What was converted.' });
const ConversionFields = {
  value: Type.Optional(Type.Number({ minimum: 0, maximum: 1e12, description: 'For a conversion: its value, in `currency`.' })),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'For a conversion: an ISO 4217 code such as EUR.' })),
};
const ExperimentFields = {
  experiment_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The running experiment the element showed this product in; sent with `arm`.' })),
  arm: Type.Optional(Type.Union(ARMS.map((a) => Type.Literal(a)), { description: 'The arm the viewer was assigned to.' })),
};
const ViewerId = Type.String({ minLength: 1, maxLength: 200, description: 'An opaque, anonymous visitor id (the element keeps one per browser in the shop’s own localStorage).' });

const BeaconEventSchema = Type.Object(
  {
    type: EventType,
    product_id: Type.String({ minLength: 1, maxLength: 100, description: 'The product viewed; an id with no product row is still counted in totals.' }),
    occurred_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When it happened; more than 24 h ago or over 5 min ahead, the receive time is used instead.' }),
    ),
    viewer_id: Type.Optional(ViewerId),
    duration_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000, description: 'For ar_session_ended: how long the session lasted.' })),
    name: Type.Optional(ConversionName),
    ...ConversionFields,
    ...ExperimentFields,
  },
  { additionalProperties: false },
);

export const BeaconBodySchema = Type.Object(
  {
    events: Type.Array(BeaconEventSchema, { minItems: 1, maxItems: 100 }),
    org_id: Type.Optional(Type.String({ description: 'For callers reaching several organizations.' })),
  },
  { additionalProperties: false },
);

export const ConversionBodySchema = Type.Object(
  {
    viewer_id: ViewerId,
    name: ConversionName,
    ...ConversionFields,
    product_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The product converted, when there is one.' })),
    occurred_at: Type.Optional(Type.String({ format: 'date-time' })),
    ...ExperimentFields,
    org_id: Type.Optional(Type.String({ description: 'For keys reaching several organizations.' })),
  },
  { additionalProperties: false },
);

const Receipt = Type.Object({
  object: Type.Literal('beacon_receipt'),
  accepted: Count,
  clamped: Type.Integer({ minimum: 0, description: 'Events whose occurred_at was replaced by the receive time.' }),
});

const UsageSchema = Type.Object(
  {
    object: Type.Literal('usage'),
    start: Type.String({ format: 'date-time' }),
    end: Type.String({ format: 'date-time' }),
    granularity: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
    buckets: Type.Array(Type.Object({ start: Type.String({ format: 'date-time' }), ...CountFields })),
    totals: Type.Object(CountFields),
    by_product: Type.Optional(
      Type.Array(Type.Object({ product_id: Type.String(), title: Nullable(Type.String()), ...CountFields })),
    ),
    by_device: Type.Optional(Type.Array(Type.Object({ device: Type.Union(DEVICES.map((d) => Type.Literal(d))), ...CountFields }))),
    by_referrer: Type.Optional(Type.Array(Type.Object({ referrer: Type.String({ description: 'The page’s origin.' }), ...CountFields }))),
  },
  { title: 'Usage' },
);

function usageJson(r: UsageReport) {
  const counts = (c: Counts) => Object.fromEntries(BEACON_TYPES.map((t) => [t, c[t]])) as Counts;
  const segment = (key: 'device' | 'referrer', rows: SegmentUsage[]) => rows.map((r) => ({ [key]: r.value, ...counts(r) }));
  return {
    object: 'usage' as const,
    start: r.start,
    end: r.end,
    granularity: r.granularity,
    buckets: r.buckets.map((b) => ({ start: b.start, ...counts(b) })),
    totals: counts(r.totals),
    ...(r.byProduct && { by_product: r.byProduct.map((p) => ({ product_id: p.productId, title: p.title, ...counts(p) })) }),
    ...(r.byDevice && { by_device: segment('device', r.byDevice) as Array<Counts & { device: (typeof DEVICES)[number] }> }),
    ...(r.byReferrer && { by_referrer: segment('referrer', r.byReferrer) as Array<Counts & { referrer: string }> }),
  };
}

/** `intake` is shared with the beacon's front-door lane (beacon-lane.ts), which answers most beacons before routing. */
export const analyticsRoutes =
  (deps: Deps, intake: BeaconIntake): FastifyPluginAsyncTypebox =>
  async (app) => {
    // Beacons waiting for their transaction are written, and answered, before the database closes.
    app.addHook('onClose', async () => intake.close());

    app.post(
      '/v1/beacon',
      {
        config: { auth: { scope: 'beacon:write', publishable: true, bucket: 'beacon' } },
        schema: {
          tags,
          summary: 'Send analytics events',
          description:
            'Records view, ar_enter, ar_session_ended, interaction, variant_change, hotspot_open, ar_cta_tap and conversion events. ' +
            'Callable by a publishable key from an allowed origin; events sent with a secret key or a session are counted as internal traffic. ' +
            'A conversion needs `name`; only a conversion takes `name`, `value` and `currency`; `experiment_id` and `arm` come together. ' +
            'The device (from the User-Agent) and the page origin (from Origin) of a publishable key\'s events feed group_by=device and group_by=referrer. ' +
            'Answers once the events are stored.',
          querystring: Type.Object({ org_id: ReachQuery.org_id }, { additionalProperties: false }),
          body: BeaconBodySchema,
          response: { 202: Receipt, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const context = { userAgent: request.headers['user-agent'], origin: request.headers.origin };
        const receipt = await intake.record(request.principal, request.body, request.query.org_id, context);
        return reply.status(202).send({ object: 'beacon_receipt' as const, ...receipt });
      },
    );

    app.post(
      '/v1/conversions',
      {
        config: { auth: { scope: 'beacon:write', session: false, bucket: 'beacon' } },
        schema: {
          tags,
          summary: 'Record a conversion from the shop’s server',
          description:
            'A conversion (add_to_cart, purchase or lead) the shop’s server saw, for the shopper the element knows by `viewer_id` ' +
            '(read it from the page with `element.viewerId`). Secret keys only. It counts as shopper traffic, not internal, ' +
            'and experiment results match it to the viewer’s arm. Goes through the same group commit as beacons.',
          body: ConversionBodySchema,
          response: { 202: Receipt, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const receipt = await intake.recordConversion(request.principal, request.body);
        return reply.status(202).send({ object: 'beacon_receipt' as const, ...receipt });
      },
    );

    app.get(
      '/v1/usage',
      {
        config: { auth: { scope: 'usage:read' } },
        schema: {
          tags,
          summary: 'Usage report',
          description:
            'Counts per bucket over a window (default: the last 30 days), totals, and with group_by=product the 20 best products ' +
            '(by_product), group_by=device the split by device (by_device) or group_by=referrer the 20 page origins with most views (by_referrer). ' +
            'The window is widened to whole buckets (UTC hours or days).',
          querystring: Type.Object(
            {
              start: Type.Optional(Type.String({ format: 'date-time' })),
              end: Type.Optional(Type.String({ format: 'date-time' })),
              granularity: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day')], { default: 'day' })),
              event_type: Type.Optional(Type.Array(EventType, { maxItems: 10 })),
              ...ReachQuery,
              product_id: Type.Optional(Type.String({ maxLength: 100 })),
              include_internal: Type.Optional(Type.Boolean({ description: 'true includes events sent with secret keys and sessions.' })),
              group_by: Type.Optional(
                Type.Union([Type.Literal('product'), Type.Literal('device'), Type.Literal('referrer')], {
                  description: 'product: the 20 best products; device: desktop, mobile, tablet; referrer: the 20 page origins with most views.',
                }),
              ),
            },
            { additionalProperties: false },
          ),
          response: { 200: UsageSchema, ...ErrorResponses },
        },
      },
      async (request) => usageJson(await usageReport(deps, request.principal, request.query)),
    );
  };
