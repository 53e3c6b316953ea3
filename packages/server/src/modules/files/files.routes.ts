import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { notFound } from '../../core/errors.js';
import { openOwnFile, openPublicFile, type OpenedFile } from './files.service.js';

function keyOf(params: unknown): string {
  const key = (params as { '*': string })['*'];
  if (!key || key.includes('..') || key.startsWith('/') || key.length > 1024) throw notFound('file');
  return key;
}

function send(reply: FastifyReply, file: OpenedFile) {
  reply.header('Content-Length', String(file.head.bytes));
  reply.header('X-Content-Type-Options', 'nosniff');
  // A stored file is never a page on this origin, even if a browser is pointed at it directly.
  reply.header('Content-Security-Policy', "default-src 'none'; sandbox");
  return reply.type(file.head.contentType ?? 'application/octet-stream').send(file.body);
}

/**
 * `/files/<key>` serves browser assets only (thumbnails, masks, renders, product models), in both
 * storage modes; their names are random, and a key's content never changes, so a CDN may cache them.
 * `/v1/files/<key>` serves any file of the caller's organizations (originals kept for processing)
 * to its keys and sessions, never publicly and never cached by shared caches.
 */
export const filesRoutes =
  (deps: Deps): FastifyPluginAsync =>
  async (app) => {
    app.get('/files/*', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
      const file = await openPublicFile(deps, keyOf(request.params));
      reply.header('Cache-Control', 'public, max-age=31536000, immutable');
      // Models and images are loaded by the embed on shop origins: public, unguessable keys, no credentials.
      reply.header('Access-Control-Allow-Origin', '*');
      reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
      return send(reply, file);
    });

    // A publishable key is let through only to be told 404: a model's master URL must not even show it exists to a page.
    app.get('/v1/files/*', { config: { auth: { scope: 'products:read', publishable: true } }, schema: { hide: true } }, async (request, reply) => {
      const file = await openOwnFile(deps, request.principal, keyOf(request.params));
      reply.header('Cache-Control', 'private, no-store');
      return send(reply, file);
    });
  };
