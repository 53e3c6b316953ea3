import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { ReachQuery } from '../../http/reach.js';
import { ErrorResponses, Nullable } from '../../http/schemas.js';
import { BEACON_TYPES, type Counts, type UsageReport } from './analytics.types.js';
import type { BeaconIntake } from './beacon.service.js';
import { usageReport } from './usage.service.js';

const tags = ['Analytics'];
const EventType = Type.Union(BEACON_TYPES.map((t) => Type.Literal(t)));
const Count = Type.Integer({ minimum: 0 });
const CountFields = { view: Count, ar_enter: Count, ar_session_ended: Count };

const BeaconEventSchema = Type.Object(
  {
    type: EventType,
    product_id: Type.String({ minLength: 1, maxLength: 100, description: 'The product viewed; an id with no product row is still counted in totals.' }),
    occurred_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When it happened; more than 24 h ago or over 5 min ahead, the receive time is used instead.' }),
    ),
    viewer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'An opaque, anonymous visitor id.' })),
    duration_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000, description: 'For ar_session_ended: how long the session lasted.' })),
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
  },
  { title: 'Usage' },
);

function usageJson(r: UsageReport) {
  const counts = (c: Counts) => ({ view: c.view, ar_enter: c.ar_enter, ar_session_ended: c.ar_session_ended });
  return {
    object: 'usage' as const,
    start: r.start,
    end: r.end,
    granularity: r.granularity,
    buckets: r.buckets.map((b) => ({ start: b.start, ...counts(b) })),
    totals: counts(r.totals),
    ...(r.byProduct && { by_product: r.byProduct.map((p) => ({ product_id: p.productId, title: p.title, ...counts(p) })) }),
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
            'Records view, ar_enter and ar_session_ended events. Callable by a publishable key from an allowed origin; ' +
            'events sent with a secret key or a session are counted as internal traffic. Answers once the events are stored.',
          querystring: Type.Object({ org_id: ReachQuery.org_id }, { additionalProperties: false }),
          body: BeaconBodySchema,
          response: {
            202: Type.Object({
              object: Type.Literal('beacon_receipt'),
              accepted: Count,
              clamped: Type.Integer({ minimum: 0, description: 'Events whose occurred_at was replaced by the receive time.' }),
            }),
            ...ErrorResponses,
          },
        },
      },
      async (request, reply) => {
        const receipt = await intake.record(request.principal, request.body, request.query.org_id);
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
            'Counts per bucket over a window (default: the last 30 days), totals, and with group_by=product the 20 best products. ' +
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
              group_by: Type.Optional(Type.Literal('product')),
            },
            { additionalProperties: false },
          ),
          response: { 200: UsageSchema, ...ErrorResponses },
        },
      },
      async (request) => usageJson(await usageReport(deps, request.principal, request.query)),
    );
  };
