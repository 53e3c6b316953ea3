import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { PageOf, PageQuery, page } from '../../http/pagination.js';
import { ReachQuery } from '../../core/reach.js';
import { idempotentEffect } from '../../http/idempotency.js';
import { ErrorResponses } from '../../http/schemas.js';
import type { EndpointRecord } from './webhooks.types.js';
import { deliveryJson, endpointJson } from './webhooks.json.js';
import { sendTestEvent } from './test-event.service.js';
import {
  CreateBody,
  DeletedEndpoint,
  DeliveryQuery,
  DeliverySchema,
  EndpointSchema,
  EndpointWithSecret,
  RotatedSecret,
  UpdateBody,
} from './webhooks.schemas.js';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listDeliveriesFor,
  listEndpointsFor,
  retryDelivery,
  rotateSecret,
  updateEndpoint,
} from './webhooks.service.js';

const manage = { auth: { scope: 'webhooks:manage' } } as const;
const tags = ['Webhooks'];
const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
/** Writes to one endpoint may name its organization; without it any organization the caller reaches is searched. */
const OrgQuery = Type.Object({ org_id: Type.Optional(Type.String()) }, { additionalProperties: false });

export const webhooksRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/webhooks',
      {
        config: manage,
        schema: {
          tags,
          summary: 'List webhook endpoints',
          querystring: Type.Object({ ...PageQuery, ...ReachQuery }, { additionalProperties: false }),
          response: { 200: PageOf(EndpointSchema), ...ErrorResponses },
        },
      },
      async (request) => {
        const { data, total } = await listEndpointsFor(deps, request.principal, request.query);
        return page(data.map(endpointJson), total, request.query);
      },
    );

    app.post(
      '/v1/webhooks',
      {
        config: manage,
        schema: {
          tags,
          summary: 'Create a webhook endpoint',
          description: 'Answers the endpoint with its signing `secret`, shown only here (and on rotate_secret).',
          querystring: OrgQuery,
          body: CreateBody,
          response: { 201: EndpointWithSecret, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const body = { ...request.body, org_id: request.body.org_id ?? request.query.org_id };
        const effect = idempotentEffect(request, reply, {
          status: 201,
          body: (c: { endpoint: EndpointRecord; secret: string }) => ({ ...endpointJson(c.endpoint), secret: c.secret }),
          location: (c) => `/v1/webhooks/${c.endpoint.id}`,
        });
        const { endpoint, secret } = await createEndpoint(deps, request.principal, body, effect);
        return reply.status(201).header('Location', `/v1/webhooks/${endpoint.id}`).send({ ...endpointJson(endpoint), secret });
      },
    );

    app.get(
      '/v1/webhooks/:id',
      {
        config: manage,
        schema: { tags, summary: 'Retrieve a webhook endpoint', params: IdParams, querystring: OrgQuery, response: { 200: EndpointSchema, ...ErrorResponses } },
      },
      async (request) => endpointJson(await getEndpoint(deps, request.principal, request.params.id, request.query.org_id)),
    );

    app.patch(
      '/v1/webhooks/:id',
      {
        config: manage,
        schema: {
          tags,
          summary: 'Update a webhook endpoint',
          params: IdParams,
          querystring: OrgQuery,
          body: UpdateBody,
          response: { 200: EndpointSchema, ...ErrorResponses },
        },
      },
      async (request) => endpointJson(await updateEndpoint(deps, request.principal, request.params.id, request.body, request.query.org_id)),
    );

    app.delete(
      '/v1/webhooks/:id',
      {
        config: manage,
        schema: {
          tags,
          summary: 'Delete a webhook endpoint',
          description: 'Its deliveries go with it; nothing more is sent to it.',
          params: IdParams,
          querystring: OrgQuery,
          response: { 200: DeletedEndpoint, ...ErrorResponses },
        },
      },
      async (request) => {
        await deleteEndpoint(deps, request.principal, request.params.id, request.query.org_id);
        return { object: 'webhook_endpoint' as const, id: request.params.id, deleted: true as const };
      },
    );

    app.post(
      '/v1/webhooks/:id/rotate_secret',
      {
        config: manage,
        schema: {
          tags,
          summary: 'Rotate the signing secret',
          description: 'Answers the new secret. For 24 h every delivery carries two signatures, one per secret.',
          params: IdParams,
          querystring: OrgQuery,
          response: { 200: RotatedSecret, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const rotated = (r: Awaited<ReturnType<typeof rotateSecret>>) => ({
          ...endpointJson(r.endpoint),
          secret: r.secret,
          previous_secret_expires_at: r.previousSecretExpiresAt,
        });
        const effect = idempotentEffect(request, reply, { status: 200, body: rotated });
        return rotated(await rotateSecret(deps, request.principal, request.params.id, request.query.org_id, effect));
      },
    );

    app.get(
      '/v1/webhooks/:id/deliveries',
      {
        config: manage,
        schema: {
          tags,
          summary: "List an endpoint's deliveries, newest first, each with its attempts",
          params: IdParams,
          querystring: Type.Object({ ...PageQuery, org_id: Type.Optional(Type.String()), ...DeliveryQuery }, { additionalProperties: false }),
          response: { 200: PageOf(DeliverySchema), ...ErrorResponses },
        },
      },
      async (request) => {
        const { data, total } = await listDeliveriesFor(deps, request.principal, request.params.id, request.query);
        return page(data.map((d) => deliveryJson(d.delivery, d.attempts)), total, request.query);
      },
    );

    app.post(
      '/v1/webhooks/:id/deliveries/:delivery_id/retry',
      {
        config: manage,
        schema: {
          tags,
          summary: 'Send a delivery again now',
          description: 'Answers 202 with the delivery, pending. 409 (details.reason endpoint_disabled) while the endpoint is disabled.',
          params: Type.Object({ id: Type.String({ maxLength: 100 }), delivery_id: Type.String({ maxLength: 100 }) }),
          querystring: OrgQuery,
          response: { 202: DeliverySchema, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const r = await retryDelivery(deps, request.principal, request.params.id, request.params.delivery_id, request.query.org_id);
        return reply.status(202).send(deliveryJson(r.delivery, r.attempts));
      },
    );

    app.post(
      '/v1/webhooks/:id/test',
      {
        config: manage,
        schema: {
          tags,
          summary: 'Send a test event',
          description:
            'Delivers a signed `webhook.test` event (data.object: {object: "webhook_test", endpoint_id, message}) to this endpoint only. Answers 202 with the delivery, pending; it shows in the deliveries list. 409 (details.reason endpoint_disabled) while the endpoint is disabled.',
          params: IdParams,
          querystring: OrgQuery,
          response: { 202: DeliverySchema, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const r = await sendTestEvent(deps, request.principal, request.params.id, request.query.org_id);
        return reply.status(202).send(deliveryJson(r.delivery, r.attempts));
      },
    );
  };
