import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Readable } from 'node:stream';
import type { Deps } from '../../deps.js';
import { AppError, validationFailed } from '../../core/errors.js';
import { ErrorResponses } from '../../http/schemas.js';
import { ACCEPTED_UPLOAD_TYPES } from './uploads.check.js';
import { tooLarge } from './uploads.receive.js';
import { storeUpload } from './uploads.service.js';

const Upload = Type.Object(
  {
    object: Type.Literal('upload'),
    path: Type.String({ description: 'Pass in image_paths (an image) or model_path (a GLB model) when creating a product.' }),
    kind: Type.Union([Type.Literal('image'), Type.Literal('model')]),
    url: Type.String({ description: 'The stored file, readable only with a key or session of this organization.' }),
    bytes: Type.Integer(),
    content_type: Type.String(),
    sha256: Type.String(),
    created_at: Type.String(),
  },
  { title: 'Upload' },
);

/**
 * A raw body, not yet read. The stream sits in a private field: hooks that walk a parsed body's own
 * properties (the well-formed-string check) see an empty object, not the socket behind it.
 */
class StreamedBody {
  readonly #stream: Readable;
  constructor(stream: Readable) {
    this.#stream = stream;
  }
  get stream(): Readable {
    return this.#stream;
  }
}

/** Raw bodies of these types are streamed through untouched; the decode check decides what they are. */
const RAW_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif', 'model/gltf-binary', 'application/octet-stream'];

/**
 * The counterpart of image_urls and model_url for files on the user's disk: a raw body with its
 * Content-Type, or a multipart form with one file field. Registered in its own scope, so the
 * streaming parsers apply only here; the body is never buffered whole.
 */
export const uploadsRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const limit = deps.config.uploadLimitBytes;
    await app.register(multipart, { limits: { fileSize: limit, files: 1, fields: 5, parts: 6 } });
    app.addContentTypeParser(RAW_TYPES, (_req, payload, done) => done(null, new StreamedBody(payload)));

    app.post(
      '/v1/uploads',
      {
        config: { auth: { scope: 'products:write' } },
        schema: {
          tags: ['Uploads'],
          summary: 'Upload an image or a GLB model',
          description:
            `A raw body (Content-Type one of ${ACCEPTED_UPLOAD_TYPES.join(', ')}) or multipart/form-data with one file. ` +
            'The file is checked by decoding it; it counts against the organization\'s upload quota, is private to the organization, ' +
            'and is deleted after 24 hours unless a product uses it.',
          querystring: Type.Object({ org_id: Type.Optional(Type.String({ maxLength: 100 })) }, { additionalProperties: false }),
          response: { 201: Upload, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const declared = Number(request.headers['content-length']);
        if (Number.isFinite(declared) && declared > limit + 64 * 1024) throw tooLarge(limit);
        let body: Readable;
        let truncated: (() => boolean) | undefined;
        if (request.isMultipart()) {
          const file = await request.file();
          if (!file) throw validationFailed([{ path: 'body.file', message: 'is required' }], 'The form has no file.');
          body = file.file;
          truncated = () => file.file.truncated;
        } else if (request.body instanceof StreamedBody) {
          body = request.body.stream;
        } else {
          throw new AppError('unsupported_media_type', 'Send the file as the raw body with its Content-Type, or as multipart/form-data.', { accepted: ACCEPTED_UPLOAD_TYPES });
        }
        try {
          const upload = await storeUpload(deps, request.principal, body, {
            orgId: request.query.org_id,
            declaredBytes: !request.isMultipart() && Number.isFinite(declared) ? declared : undefined,
            truncated,
          });
          return reply.status(201).send(upload);
        } catch (err) {
          if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(limit);
          throw err;
        }
      },
    );
  };
