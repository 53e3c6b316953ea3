import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { idempotentEffect } from '../../http/idempotency.js';
import { ErrorResponses, SecretRedacted } from '../../http/schemas.js';
import { PageOf, PageQuery, page } from '../../http/pagination.js';
import { ReachQuery } from '../../core/reach.js';
import type { CredentialCache } from '../../core/principal.js';
import { SCOPES } from '../../core/principal.js';
import type { ApiKeyRecord } from './keys.repo.js';
import { createKey, listApiKeys, revokeApiKey } from './keys.service.js';

const ApiKey = Type.Object(
  {
    object: Type.Literal('api_key'),
    id: Type.String(),
    type: Type.Union([Type.Literal('secret'), Type.Literal('publishable')]),
    name: Type.Union([Type.String(), Type.Null()]),
    prefix: Type.String({ description: 'The first characters of the key, for recognising it; never the whole key.' }),
    scopes: Type.Array(Type.String()),
    org_ids: Type.Array(Type.String()),
    project_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'ApiKey' },
);

const CreatedApiKey = Type.Composite(
  [
    ApiKey,
    Type.Object({
      key: Type.Optional(Type.String({ description: 'The key material. Shown only in this response; absent from an idempotent replay (secret_redacted).' })),
      secret_redacted: SecretRedacted,
    }),
  ],
  { title: 'CreatedApiKey' },
);

function toJson(r: ApiKeyRecord) {
  return {
    object: 'api_key' as const,
    id: r.id,
    type: r.type,
    name: r.name,
    prefix: r.prefix,
    scopes: r.scopes,
    org_ids: r.orgIds,
    project_id: r.projectId,
    created_at: r.createdAt,
    revoked_at: r.revokedAt,
    last_used_at: r.lastUsedAt,
  };
}

const full = { auth: { scope: null } } as const;

export const keysRoutes =
  (deps: Deps, auth: CredentialCache): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/api_keys',
      {
        config: full,
        schema: {
          tags: ['Keys'],
          summary: 'List API keys',
          querystring: Type.Object({ ...PageQuery, ...ReachQuery }, { additionalProperties: false }),
          response: { 200: PageOf(ApiKey), ...ErrorResponses },
        },
      },
      async (request) => {
        const { data, total } = await listApiKeys(deps, request.principal, request.query);
        return page(data.map(toJson), total, request.query);
      },
    );

    app.post(
      '/v1/api_keys',
      {
        config: full,
        schema: {
          tags: ['Keys'],
          summary: 'Create an API key',
          description: 'Owners and admins only. The key material is in `key`, shown once.',
          body: Type.Object(
            {
              type: Type.Optional(Type.Union([Type.Literal('secret'), Type.Literal('publishable')], { default: 'secret' })),
              name: Type.Optional(Type.String({ maxLength: 200 })),
              scopes: Type.Optional(
                Type.Array(Type.String({ examples: [...SCOPES] }), { maxItems: 20, description: 'Empty: full access for the key type.' }),
              ),
              org_id: Type.Optional(Type.String()),
              org_ids: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 100 })),
              project_id: Type.Optional(Type.String({ description: 'Required for a publishable key.' })),
            },
            { additionalProperties: false },
          ),
          response: { 201: CreatedApiKey, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const effect = idempotentEffect(request, reply, { status: 201, body: (c: { record: ApiKeyRecord; key: string }) => ({ ...toJson(c.record), key: c.key }) });
        const { record, key } = await createKey(deps, request.principal, request.body, effect);
        return reply.status(201).send({ ...toJson(record), key });
      },
    );

    app.delete(
      '/v1/api_keys/:id',
      {
        config: full,
        schema: {
          tags: ['Keys'],
          summary: 'Revoke an API key',
          params: Type.Object({ id: Type.String() }),
          response: { 200: ApiKey, ...ErrorResponses },
        },
      },
      async (request) => toJson(await revokeApiKey(deps, auth, request.principal, request.params.id)),
    );
  };
