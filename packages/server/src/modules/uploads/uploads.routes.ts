import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { AppError } from '../../http/errors.js';
import { ErrorResponses } from '../../http/schemas.js';
import { storeUpload } from './uploads.service.js';

const Upload = Type.Object(
  {
    object: Type.Literal('upload'),
    path: Type.String({ description: 'Pass in image_paths when creating a product.' }),
    bytes: Type.Integer(),
    content_type: Type.String(),
    sha256: Type.String(),
    created_at: Type.String(),
  },
  { title: 'Upload' },
);

/**
 * Beyond the spec, needed for image_paths: a raw image body (`Content-Type: image/*`) or a multipart
 * form with one file field. Registered in its own scope, so the raw-body parsers apply only here.
 */
export const uploadsRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const limit = deps.config.uploadLimitBytes;
    await app.register(multipart, { limits: { fileSize: limit, files: 1, fields: 5 } });
    app.addContentTypeParser(['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif', 'application/octet-stream'], { parseAs: 'buffer', bodyLimit: limit }, (_req, body, done) => done(null, body));

    app.post(
      '/v1/uploads',
      {
        config: { auth: { scope: 'products:write' } },
        bodyLimit: limit,
        schema: {
          tags: ['Uploads'],
          summary: 'Upload an image (beyond the spec)',
          querystring: Type.Object({ org_id: Type.Optional(Type.String()) }, { additionalProperties: false }),
          response: { 201: Upload, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        let data: Buffer;
        if (request.isMultipart()) {
          const file = await request.file();
          if (!file) throw new AppError('validation_failed', 'The form has no file.', { errors: [{ path: 'body.file', message: 'is required' }] });
          try {
            data = await file.toBuffer();
          } catch (err) {
            if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
              throw new AppError('payload_too_large', 'The file is larger than uploads accept.', { limit_bytes: limit });
            }
            throw err;
          }
        } else if (Buffer.isBuffer(request.body)) {
          data = request.body;
        } else {
          throw new AppError('unsupported_media_type', 'Send the image as the raw body with its Content-Type, or as multipart/form-data.');
        }
        return reply.status(201).send(await storeUpload(deps, request.principal, data, request.query.org_id));
      },
    );
  };
