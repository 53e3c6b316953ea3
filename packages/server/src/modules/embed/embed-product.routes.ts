import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { sendCacheableJson } from '../../http/conditional.js';
import { AppError } from '../../core/errors.js';
import { ErrorResponses } from '../../http/schemas.js';
import { embedProduct } from './embed-product.service.js';
import { EmbedViewerFeatureFields } from './embed-viewer-features.js';

const Num = Type.Number();
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const EmbedViewerSchema = Type.Object(
  {
    exposure: Num,
    shadow_intensity: Num,
    camera_orbit: Nullable(Type.String()),
    environment: Type.String(),
    auto_rotate: Type.Boolean(),
    ...EmbedViewerFeatureFields,
  },
  { title: 'EmbedViewer', description: 'model-viewer settings saved with PATCH /v1/products/{id}/model, defaults filled in.' },
);

export const EmbedProductSchema = Type.Object(
  {
    id: Type.String(),
    title: Nullable(Type.String()),
    model_url: Type.String(),
    usdz_url: Nullable(Type.String()),
    sources: Type.Object(
      { web: Type.String(), mobile: Type.String(), usdz: Nullable(Type.String()) },
      { title: 'EmbedSources', description: 'The deliveries: `mobile` for narrow (≤ 768 CSS px), data-saving, 2g/3g or low-memory (≤ 4 GB) devices, else `web`; `usdz` for Quick Look.' },
    ),
    poster_url: Nullable(Type.String()),
    dimensions: Type.Union([Type.Object({ width: Num, height: Num, depth: Num }), Type.Null()], { description: 'metres' }),
    viewer: EmbedViewerSchema,
    experiment: Type.Union(
      [Type.Object({ id: Type.String(), arms: Type.Object({ '3d': Num, poster: Num }) }), Type.Null()],
      { description: 'The running experiment covering this product: the element shows each viewer the arm a stable hash of its viewer id and this id picks.' },
    ),
    variants: Type.Array(Type.Object({ name: Type.String() })),
    usdz_variants: Type.Record(Type.String(), Type.String(), { description: 'one USDZ per variant, name -> URL' }),
  },
  { title: 'EmbedProduct', description: 'What <service-model> needs to show a published product: its model, USDZ, poster and viewer settings.' },
);

/**
 * `GET /embed/products/{id}`: outside /v1 (it serves the element, not integrations), with the public read's
 * rules: a publishable key, an allowed origin, and 404 unless the product is published with a ready model.
 */
export const embedProductRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/embed/products/:id',
      {
        config: { auth: { scope: 'products:read', publishable: true, session: false } },
        schema: {
          tags: ['Embed'],
          summary: 'Retrieve a product for the embed',
          operationId: 'getEmbedProduct',
          description:
            'For `<service-model>`, with a publishable key from an allowed origin. A secret key is refused with 401: it must never be put in a page. ' +
            'Answers carry a strong ETag (send If-None-Match for a 304) and may be cached publicly for a minute.',
          params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
          response: { 200: EmbedProductSchema, 304: Type.Null({ description: 'Not modified: the ETag in If-None-Match is current.' }), ...ErrorResponses },
        },
      },
      async (request, reply) => {
        if (request.principal.kind !== 'publishable_key') {
          throw new AppError('unauthenticated', 'The embed takes a publishable key (pk_…). A secret key must never be put in a web page: revoke it if it was.');
        }
        const product = await embedProduct(deps, request.principal.orgIds, request.params.id);
        return sendCacheableJson(request, reply, JSON.stringify(product));
      },
    );
  };
