import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { captureMatPdf, MAT_CAPTION } from '@plinth/media';
import { ErrorResponses } from '../../http/schemas.js';

/** The same bytes for every request of a build: a day in any cache, revalidated by the ETag after. */
const CACHE_CONTROL = 'public, max-age=86400';

const PdfResponse = {
  description: 'The capture mat, one A4 page (vector PDF).',
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
};

/** The capture mat's bytes and their ETag, made once per process. */
export function captureMat(): { pdf: Buffer; etag: string } {
  const pdf = captureMatPdf();
  return { pdf, etag: `"${createHash('sha256').update(pdf).digest('base64url').slice(0, 22)}"` };
}

/**
 * `GET /capture-mat.pdf`: the printed board a textureless product stands on while it is photographed
 * (docs/generation.md). Public: a shop prints it before it has signed in anywhere.
 */
export const captureMatRoutes = (): FastifyPluginAsyncTypebox => async (app) => {
  const { pdf, etag } = captureMat();
  app.get(
    '/capture-mat.pdf',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['Capture'],
        operationId: 'getCaptureMat',
        summary: 'The printable capture mat',
        description:
          `A ChArUco board (5 × 7 squares of 36 mm, ArUco dictionary DICT_4X4_50) on one A4 page, with the caption "${MAT_CAPTION}" ` +
          'and a 50 mm check ruler. Print it at 100 % and stand the product on it: photos that show it at least three times ' +
          'give the generator its cameras and the real size (`model.quality.pose_source` and `scale_source` `mat`). ' +
          'Public, cacheable for a day; `If-None-Match` with the ETag answers 304.',
        security: [],
        response: { 200: PdfResponse, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', CACHE_CONTROL).header('ETag', etag);
      if (request.headers['if-none-match'] === etag) return reply.status(304).send();
      return reply.type('application/pdf').header('Content-Disposition', 'inline; filename="plinth-capture-mat.pdf"').send(pdf);
    },
  );
};
