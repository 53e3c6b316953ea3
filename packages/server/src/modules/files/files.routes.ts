import type { FastifyPluginAsync } from 'fastify';
import type { Deps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { BlobNotFoundError } from '../../platform/storage/types.js';

/**
 * Asset URLs point here (`PUBLIC_URL/files/<key>`) in both storage modes. Keys hold unguessable ids;
 * a CDN in front of this route can cache it, since a key's content never changes.
 */
export const filesRoutes =
  (deps: Deps): FastifyPluginAsync =>
  async (app) => {
    app.get('/files/*', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
      const key = (request.params as { '*': string })['*'];
      if (!key || key.includes('..') || key.startsWith('/')) throw notFound('file');
      const head = await deps.storage.head(key).catch(() => null);
      if (!head) throw notFound('file');
      try {
        const body = await deps.storage.get(key);
        reply.header('Content-Length', String(head.bytes));
        reply.header('Cache-Control', 'public, max-age=31536000, immutable');
        reply.header('X-Content-Type-Options', 'nosniff');
        // Models and images are loaded by the embed on shop origins: public, unguessable keys, no credentials.
        reply.header('Access-Control-Allow-Origin', '*');
        reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
        return reply.type(head.contentType ?? 'application/octet-stream').send(body);
      } catch (err) {
        if (err instanceof BlobNotFoundError) throw notFound('file');
        throw err;
      }
    });
  };
