import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { ErrorResponses } from '../../http/schemas.js';
import { ImageSettingsSchema } from '../assets/index.js';
import { productJson } from '../products/index.js';
import { ProductSchema, ProductStatusSchema, ReviewStatusSchema } from '../products/index.js';
import { review, type ReviewBody } from './review.service.js';

export const reviewRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/products/:id/review',
      {
        config: { auth: { scope: 'products:write' } },
        schema: {
          tags: ['Review'],
          summary: 'Flush a batch of review decisions',
          description: 'Image decisions and settings, the model\'s decision and the user-set status, validated together and applied in order (status last). Records decisions only.',
          params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
          body: Type.Object(
            {
              images: Type.Optional(
                Type.Array(
                  Type.Object(
                    { image_id: Type.String({ maxLength: 100 }), decision: Type.Optional(ReviewStatusSchema), settings: Type.Optional(ImageSettingsSchema) },
                    { additionalProperties: false },
                  ),
                  { maxItems: 500 },
                ),
              ),
              model: Type.Optional(Type.Object({ decision: ReviewStatusSchema }, { additionalProperties: false })),
              status: Type.Optional(ProductStatusSchema),
            },
            { additionalProperties: false, minProperties: 1 },
          ),
          response: { 200: ProductSchema, ...ErrorResponses },
        },
      },
      async (request) => productJson(await review(deps, request.principal, request.params.id, request.body as ReviewBody), deps.storage),
    );
  };
