import { Type } from '@sinclair/typebox';
import { SecretRedacted, Timestamp } from '../../http/schemas.js';
import { DELIVERY_STATUSES, SUBSCRIBABLE_EVENTS } from './webhooks.types.js';

const Str = Type.String();
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const EventType = Type.Union(
  SUBSCRIBABLE_EVENTS.map((t) => Type.Literal(t)),
  { description: 'An event type, or "*" for every type (including types added later).' },
);

export const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'Where events are POSTed: https (http only for hosts in PLINTH_FETCH_ALLOW_HOSTS); never a private address.',
});
const Description = Nullable(Type.String({ maxLength: 500 }));
const Events = (description?: string) => Type.Array(EventType, { minItems: 1, maxItems: SUBSCRIBABLE_EVENTS.length, description });

export const CreateBody = Type.Object(
  {
    url: Url,
    description: Type.Optional(Description),
    events: Type.Optional(Events('Event types to receive; default ["*"].')),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    org_id: Type.Optional(Str),
  },
  { additionalProperties: false },
);

export const UpdateBody = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Description),
    events: Type.Optional(Events()),
    enabled: Type.Optional(Type.Boolean({ description: 'false ends the pending deliveries; true resumes with new events.' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const EndpointSchema = Type.Object(
  {
    object: Type.Literal('webhook_endpoint'),
    id: Str,
    org_id: Str,
    url: Str,
    description: Nullable(Str),
    events: Type.Array(Str),
    enabled: Type.Boolean(),
    disabled_reason: Nullable(Type.String({ description: '"gone" when the endpoint answered 410 and was disabled.' })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'WebhookEndpoint' },
);

const Secret = Type.Optional(
  Type.String({ description: 'whsec_ + base64 key for verifying signatures. Shown only in this response; absent from an idempotent replay (secret_redacted).' }),
);

export const EndpointWithSecret = Type.Composite([EndpointSchema, Type.Object({ secret: Secret, secret_redacted: SecretRedacted })], {
  title: 'WebhookEndpointWithSecret',
});

export const RotatedSecret = Type.Composite(
  [
    EndpointSchema,
    Type.Object({
      secret: Secret,
      secret_redacted: SecretRedacted,
      previous_secret_expires_at: Type.String({ format: 'date-time', description: 'Until then deliveries carry a signature with the old secret too.' }),
    }),
  ],
  { title: 'WebhookEndpointRotatedSecret' },
);

export const DeletedEndpoint = Type.Object({ object: Type.Literal('webhook_endpoint'), id: Str, deleted: Type.Literal(true) });

const DeliveryStatusSchema = Type.Union(
  DELIVERY_STATUSES.map((s) => Type.Literal(s)),
  { description: 'pending | succeeded | failed' },
);

const Attempt = Type.Object(
  {
    attempt: Type.Integer({ description: '1 for the first attempt.' }),
    started_at: Timestamp,
    finished_at: Nullable(Timestamp),
    duration_ms: Nullable(Type.Integer()),
    response_status: Nullable(Type.Integer({ description: 'HTTP status the endpoint answered, null when no answer came.' })),
    error: Nullable(
      Type.Object({
        code: Type.String({ description: 'http_status, timeout, network, dns_failed, blocked_address, too_large, bad_url or interrupted.' }),
        message: Str,
      }),
    ),
    next_attempt_at: Nullable(Type.String({ format: 'date-time', description: 'When the retry this failure scheduled runs; null if none.' })),
  },
  { title: 'WebhookAttempt' },
);

export const DeliverySchema = Type.Object(
  {
    object: Type.Literal('webhook_delivery'),
    id: Str,
    endpoint_id: Str,
    org_id: Str,
    event_id: Type.String({ description: 'Also the webhook-id header of every attempt.' }),
    event_type: Str,
    status: DeliveryStatusSchema,
    failure_reason: Nullable(Type.String({ description: 'attempts_exhausted, endpoint_gone, endpoint_disabled or event_missing.' })),
    attempt_count: Type.Integer(),
    last_response_status: Nullable(Type.Integer()),
    next_attempt_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
    attempts: Type.Array(Attempt),
  },
  { title: 'WebhookDelivery' },
);

export const DeliveryQuery = {
  status: Type.Optional(Type.Array(DeliveryStatusSchema, { description: 'Repeatable: ?status=failed&status=pending.' })),
};
