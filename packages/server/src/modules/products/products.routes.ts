import { sendTaggedJson, tagged } from '../../http/conditional.js';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { notFound } from '../../core/errors.js';
import { PageOf, PageQuery, page } from '../../http/pagination.js';
import { ReachQuery } from '../../core/reach.js';
import { idempotentEffect } from '../../http/idempotency.js';
import { ErrorResponses } from '../../http/schemas.js';
import { createProduct } from './create.service.js';
import { orderQuote } from './order.service.js';
import { productJson, publicProjection } from './products.json.js';
import {
  CaptureSchema,
  CreateBodySchema,
  DimensionsInputSchema,
  CustomId,
  ListQuerySchema,
  ProductSchema,
  ProductStatusSchema,
  PublicProductSchema,
  QuoteSchema,
  Tag,
} from './products.schemas.js';
import { deleteProduct, deleteProducts, getProduct, listProductsFor, listTags, publishProducts, updateProduct } from './products.service.js';
import { findProductRow, toProductRecord } from './products.repo.js';
import { orgsKey, type PublicAnswers } from './public-read-lane.js';

const read = { auth: { scope: 'products:read' } } as const;
const write = { auth: { scope: 'products:write' } } as const;
const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const tags = ['Products'];

export const productsRoutes =
  (deps: Deps, publicAnswers: PublicAnswers): FastifyPluginAsyncTypebox =>
  async (app) => {
    const json = (p: Parameters<typeof productJson>[0]) => productJson(p, deps.storage);
    /** The five public fields of a published product with a ready model, tagged once for every request that reuses them. */
    const publicAnswer = async (orgIds: string[], id: string) => {
      // The projection uses no images: the row alone, one query instead of two.
      const row = await findProductRow(deps.database.db, id, orgIds);
      if (!row || row.status !== 'published' || row.model_status !== 'ready') throw notFound('product');
      // Sent as prepared bytes: the five fields exactly, past the response serializer of the full record.
      return tagged(JSON.stringify(publicProjection(toProductRecord(row, []), deps.storage)));
    };

    app.post(
      '/v1/products',
      {
        config: write,
        schema: {
          tags,
          summary: 'Create a product',
          description:
            'A fresh request (image_urls, video_url, source_url or image_paths) answers 200 with a quote and writes nothing. ' +
            'Committing its resume_token, or importing a model_url, answers 202 with the product.',
          body: CreateBodySchema,
          response: { 200: QuoteSchema, 202: ProductSchema, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const effect = idempotentEffect(request, reply, { status: 202, body: json, location: (p) => `/v1/products/${p.id}` });
        const outcome = await createProduct(deps, request.principal, request.body, effect);
        if (outcome.kind === 'quote') return reply.status(200).send(outcome.quote);
        return reply.status(202).header('Location', `/v1/products/${outcome.product.id}`).send(json(outcome.product));
      },
    );

    app.get(
      '/v1/products',
      {
        config: read,
        schema: {
          tags,
          summary: 'List products',
          querystring: Type.Object({ ...PageQuery, ...ReachQuery, ...ListQuerySchema }, { additionalProperties: false }),
          response: { 200: PageOf(ProductSchema), ...ErrorResponses },
        },
      },
      async (request) => {
        const { data, total } = await listProductsFor(deps, request.principal, request.query);
        return page(data.map(json), total, request.query);
      },
    );

    app.get(
      '/v1/products/tags',
      {
        config: read,
        schema: {
          tags,
          summary: 'List tags with their product counts',
          querystring: Type.Object({ ...PageQuery, ...ReachQuery }, { additionalProperties: false }),
          response: { 200: PageOf(Type.Object({ tag: Type.String(), count: Type.Integer() })), ...ErrorResponses },
        },
      },
      async (request) => {
        const { rows, total } = await listTags(deps, request.principal, request.query);
        return page(rows, total, request.query);
      },
    );

    app.post(
      '/v1/products/publish',
      {
        config: write,
        schema: {
          tags,
          summary: 'Publish (or set the status of) products',
          body: Type.Object(
            {
              ids: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 200 }),
              status: Type.Optional(ProductStatusSchema),
              org_id: Type.Optional(Type.String()),
            },
            { additionalProperties: false },
          ),
          response: {
            200: Type.Object({
              object: Type.Literal('publish_result'),
              status: ProductStatusSchema,
              updated: Type.Array(Type.String()),
              refused: Type.Array(Type.Object({ id: Type.String(), reason: Type.String() })),
            }),
            ...ErrorResponses,
          },
        },
      },
      async (request) => publishProducts(deps, request.principal, request.body),
    );

    app.get(
      '/v1/products/:id',
      {
        config: { auth: { scope: 'products:read', publishable: true } },
        schema: {
          tags,
          summary: 'Retrieve a product',
          description: 'With a secret key or session: the product with its assets. With a publishable key: the public projection, for a published product whose model is ready only.',
          params: IdParams,
          response: { 200: Type.Union([ProductSchema, PublicProductSchema]), ...ErrorResponses },
        },
      },
      // Not async: a cached public answer is sent synchronously, with no promise; the rest returns one.
      (request, reply) => {
        const principal = request.principal;
        if (principal.kind !== 'publishable_key') {
          return getProduct(deps, principal, request.params.id).then((p) => reply.type('application/json; charset=utf-8').send(JSON.stringify(json(p)) as never) as never);
        }
        const orgs = orgsKey(principal);
        const id = request.params.id;
        const cached = publicAnswers.get(orgs, id);
        if (cached) {
          sendTaggedJson(request, reply, cached);
          return;
        }
        return publicAnswer(principal.orgIds, id).then((answer) => {
          publicAnswers.set(orgs, id, answer);
          return sendTaggedJson(request, reply, answer) as never;
        });
      },
    );

    app.patch(
      '/v1/products/:id',
      {
        config: write,
        schema: {
          tags,
          summary: 'Update a product',
          params: IdParams,
          body: Type.Object(
            {
              title: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Null()])),
              custom_id: Type.Optional(Type.Union([CustomId, Type.Null()])),
              tags: Type.Optional(Type.Array(Tag, { maxItems: 50 })),
            },
            { additionalProperties: false, minProperties: 1 },
          ),
          response: { 200: ProductSchema, ...ErrorResponses },
        },
      },
      async (request) => json(await updateProduct(deps, request.principal, request.params.id, request.body)),
    );

    app.delete(
      '/v1/products/:id',
      {
        config: write,
        schema: {
          tags,
          summary: 'Delete a product',
          params: IdParams,
          response: { 200: Type.Object({ object: Type.Literal('product'), id: Type.String(), deleted: Type.Literal(true) }), ...ErrorResponses },
        },
      },
      async (request) => {
        await deleteProduct(deps, request.principal, request.params.id);
        return { object: 'product' as const, id: request.params.id, deleted: true as const };
      },
    );

    app.delete(
      '/v1/products',
      {
        config: write,
        schema: {
          tags,
          summary: 'Delete several products',
          description: 'Answers the ids that were deleted; ids that do not exist or are out of reach are simply absent.',
          querystring: Type.Object({ ids: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 200 }) }, { additionalProperties: false }),
          response: { 200: Type.Object({ object: Type.Literal('batch_delete'), deleted: Type.Array(Type.String()) }), ...ErrorResponses },
        },
      },
      async (request) => ({ object: 'batch_delete' as const, deleted: await deleteProducts(deps, request.principal, [...new Set(request.query.ids)]) }),
    );

    app.post(
      '/v1/products/:id/order',
      {
        config: write,
        schema: {
          tags,
          summary: 'Order the missing half (a model, or renders)',
          description: 'Answers a quote; commit it with POST /v1/products {resume_token}. 409 details.reason: no_analysis, generating, images_ordered, model_exists, model_failed.',
          params: IdParams,
          body: Type.Object({ capture: Type.Optional(CaptureSchema), dimensions: Type.Optional(DimensionsInputSchema) }, { additionalProperties: false }),
          response: { 200: QuoteSchema, ...ErrorResponses },
        },
        // The body is optional: an order with nothing to say about the capture sends none.
        preValidation: (request, _reply, done) => {
          if (request.body === undefined || request.body === null) request.body = {};
          done();
        },
      },
      async (request) => orderQuote(deps, request.principal, request.params.id, request.body ?? {}),
    );
  };
