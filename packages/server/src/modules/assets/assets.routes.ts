import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { idempotentEffect } from '../../http/idempotency.js';
import { ErrorResponses } from '../../http/schemas.js';
import { productJson } from '../products/index.js';
import { DeliveryBudgetsSchema, ProductSchema } from '../products/index.js';
import { rescale, updateImage, updateModel } from './assets.service.js';
import { ImageSettingsSchema, ViewerSettingsSchema } from './settings.schemas.js';

const write = { auth: { scope: 'products:write' } } as const;
const tags = ['Assets'];
const Id = Type.String({ maxLength: 100 });
const Metres = Type.Number({ exclusiveMinimum: 0, maximum: 1000 });

export const assetsRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const json = (p: Parameters<typeof productJson>[0]) => productJson(p, deps.storage);

    app.patch(
      '/v1/products/:id/images/:image_id',
      {
        config: write,
        schema: {
          tags,
          summary: 'Update an image (settings, position)',
          params: Type.Object({ id: Id, image_id: Id }),
          body: Type.Object({ settings: Type.Optional(ImageSettingsSchema), position: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })) }, { additionalProperties: false, minProperties: 1 }),
          response: { 200: ProductSchema, ...ErrorResponses },
        },
      },
      async (request) => json(await updateImage(deps, request.principal, request.params.id, request.params.image_id, request.body)),
    );

    app.patch(
      '/v1/products/:id/model',
      {
        config: write,
        schema: {
          tags,
          summary: 'Update the model (viewer settings, delivery budgets, or replace it by a new model_url)',
          description: '`delivery_budgets` sets this model\'s own budgets and re-optimises its deliveries from the master in a job; the current files stay served until then.',
          params: Type.Object({ id: Id }),
          body: Type.Object(
            {
              settings: Type.Optional(ViewerSettingsSchema),
              model_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
              delivery_budgets: Type.Optional(DeliveryBudgetsSchema),
            },
            { additionalProperties: false, minProperties: 1 },
          ),
          response: { 200: ProductSchema, ...ErrorResponses },
        },
      },
      async (request) => json(await updateModel(deps, request.principal, request.params.id, request.body)),
    );

    app.post(
      '/v1/products/:id/model/rescale',
      {
        config: write,
        schema: {
          tags,
          summary: 'Rescale the model',
          description: '`{scale}` multiplies every dimension; `{dimensions: {height: 0.5}}` scales uniformly so that one dimension (metres) is met.',
          params: Type.Object({ id: Id }),
          body: Type.Object(
            {
              scale: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1000 })),
              dimensions: Type.Optional(Type.Object({ width: Type.Optional(Metres), height: Type.Optional(Metres), depth: Type.Optional(Metres) }, { additionalProperties: false })),
            },
            { additionalProperties: false },
          ),
          response: { 200: ProductSchema, ...ErrorResponses },
        },
      },
      async (request, reply) =>
        json(await rescale(deps, request.principal, request.params.id, request.body, idempotentEffect(request, reply, { status: 200, body: json }))),
    );
  };
