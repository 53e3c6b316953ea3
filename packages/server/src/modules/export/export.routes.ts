import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { ReachQuery } from '../../core/reach.js';
import { ErrorResponses } from '../../http/schemas.js';
import { ListQuerySchema } from '../products/index.js';
import { PresetSchema } from '../assets/index.js';
import { downloadExport, MAX_EXPORT_PRODUCTS, requestExport, type ExportOutcome, type ExportQuery } from './export.service.js';

const Queued = Type.Object(
  {
    object: Type.Literal('export'),
    status: Type.Literal('queued'),
    export_id: Type.String(),
    pending_images: Type.Integer(),
    total_images: Type.Integer(),
    notify_email: Type.String(),
  },
  { title: 'QueuedExport' },
);

const ZipResponse = { description: 'A ZIP of finished images with manifest.json', content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } };

export const exportRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const send = (reply: FastifyReply, outcome: ExportOutcome) => {
      if (outcome.kind === 'queued') return reply.status(202).send(outcome.body);
      return reply
        .status(200)
        .type('application/zip')
        .header('Content-Disposition', `attachment; filename="${outcome.filename}"`)
        .header('Cache-Control', 'no-store')
        .send(outcome.stream);
    };

    app.get(
      '/v1/products/export',
      {
        config: { auth: { scope: 'products:read' } },
        schema: {
          tags: ['Export'],
          summary: 'Export finished images as a ZIP',
          description: `Select by repeated \`ids\` or by the list's filters, at most ${MAX_EXPORT_PRODUCTS} products. \`image_review_status\` (repeatable) defaults to accepted and pending. When more images need finishing than one request does, the answer is 202 and a link goes to \`notify_email\`; the same request later streams the ZIP. \`preset\` applies a channel's canvas, fill, background and format over each image's settings (explicit settings still override it); the manifest gives each entry's \`compliance\` and lists the failing images under \`non_compliant\`, and \`strict=true\` leaves them out. The 3D model is never included.`,
          querystring: Type.Object(
            {
              ...ReachQuery,
              ...ListQuerySchema,
              ids: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 1000 })),
              image_review_status: Type.Optional(Type.Array(Type.String({ enum: ['accepted', 'pending', 'rejected'] }), { maxItems: 3 })),
              notify_email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
              preset: Type.Optional(PresetSchema),
              strict: Type.Optional(Type.Boolean({ description: 'leave the images that fail a compliance check out of the ZIP (reason non_compliant)' })),
            },
            { additionalProperties: false },
          ),
          response: { 200: ZipResponse, 202: Queued, ...ErrorResponses },
        },
      },
      async (request, reply) => send(reply as unknown as FastifyReply, await requestExport(deps, request.principal, request.query as ExportQuery)),
    );

    app.get(
      '/v1/exports/:id/download',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['Export'],
          summary: 'Download a queued export (the signed link from the mail)',
          security: [],
          params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
          querystring: Type.Object({ expires: Type.Integer({ minimum: 0, maximum: 2 ** 40, description: 'Unix seconds.' }), signature: Type.String({ maxLength: 200 }) }, { additionalProperties: false }),
          response: { 200: ZipResponse, ...ErrorResponses },
        },
      },
      async (request, reply) => send(reply as unknown as FastifyReply, await downloadExport(deps, request.params.id, request.query.expires, request.query.signature)),
    );
  };
