import { Type } from '@sinclair/typebox';

export const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable machine-readable code.' }),
      message: Type.String(),
      details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
      request_id: Type.String(),
    }),
  },
  { title: 'Error', description: 'Every non-2xx answer has this shape.' },
);

/** Response entries for the statuses any authenticated route can answer with. */
export const ErrorResponses = {
  '4xx': ErrorEnvelopeSchema,
  '5xx': ErrorEnvelopeSchema,
} as const;

/**
 * Set on an idempotent replay of an answer that revealed a secret: stored answers never keep one, so
 * the replay carries the record without it. The secret itself was in the first answer only.
 */
export const SecretRedacted = Type.Optional(
  Type.Literal(true, { description: 'Present (true) on an Idempotency-Key replay: the secret was shown in the first answer only and is left out.' }),
);

export const Timestamp = Type.String({ format: 'date-time' });
export const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
