import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { contentSecurityPolicy, setPageSecurityHeaders, VIEWER_SOURCES } from '../../http/security-headers.js';
import { AppError, notFound } from '../../core/errors.js';
import { sendError } from '../../http/error-handler.js';
import { demoNotFoundHtml, demoPageHtml } from './demo.page.js';
import { DemoKeys } from './demo.service.js';
import { EmbedBundle, embedVersion } from './embed.bundle.js';
import { EmbedDecoders } from './embed.decoders.js';

export interface EmbedRoutesOptions {
  /** the built bundle; tests point it elsewhere to see the unbuilt case */
  bundlePath?: string;
}

/** A shop's page picks up a fix within minutes; the versioned URL never changes, so it is kept for a year. */
const PLAIN_CACHE = 'public, max-age=300';
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';
/** Decoders change only with three.js; a day, revalidated by ETag. */
const DECODER_CACHE = 'public, max-age=86400';
const hidden = { hide: true } as const;
const pub = { auth: 'public' } as const;

function acceptsGzip(request: FastifyRequest): boolean {
  return /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
}

function wantsHtml(request: FastifyRequest): boolean {
  return String(request.headers.accept ?? 'text/html').includes('text/html');
}

/**
 * `/embed.js` (and `/embed/v{version}.js`) serve the one ES module built from packages/embed;
 * `/demo/{product_id}` shows it for a published product of the demo organization.
 */
export const embedRoutes =
  (deps: Deps, options: EmbedRoutesOptions = {}): FastifyPluginAsync =>
  async (app) => {
    const bundle = new EmbedBundle(options.bundlePath);
    const version = embedVersion();
    const versionedPath = `/embed/v${version}.js`;
    const demo = new DemoKeys(deps);

    async function sendBundle(request: FastifyRequest, reply: FastifyReply, cacheControl: string) {
      const loaded = await bundle.load();
      if (!loaded) {
        throw new AppError(
          'service_unavailable',
          'The embed bundle has not been built on this server. Run `npm run build -w packages/embed` (or `npm run build`), then reload.',
          { bundle_path: bundle.path },
          { 'Cache-Control': 'no-store', 'Access-Control-Allow-Origin': '*' },
        );
      }
      // A module script from another origin is a CORS request: every shop page must be able to load it.
      reply.header('Access-Control-Allow-Origin', '*');
      reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Cache-Control', cacheControl);
      reply.header('ETag', loaded.etag);
      reply.header('Vary', 'Accept-Encoding');
      reply.type('text/javascript; charset=utf-8');
      if (request.headers['if-none-match'] === loaded.etag) return reply.status(304).send();
      if (acceptsGzip(request)) {
        reply.header('Content-Encoding', 'gzip');
        return reply.send(await loaded.gzipped());
      }
      return reply.send(loaded.body);
    }

    app.get('/embed.js', { config: pub, schema: hidden }, (request, reply) => sendBundle(request, reply, PLAIN_CACHE));

    app.get('/embed/:file', { config: pub, schema: hidden }, (request, reply) => {
      // Only the current build is kept: an old version's URL answers 404 rather than newer code under an immutable name.
      if ((request.params as { file: string }).file !== versionedPath.slice('/embed/'.length)) throw notFound('embed version');
      return sendBundle(request, reply, VERSIONED_CACHE);
    });

    const decoders = new EmbedDecoders(options.bundlePath);
    // Fetched by model-viewer from the shop's page (Draco's wrapper and WebAssembly) or loaded as a script (meshopt).
    app.get('/embed/decoders/*', { config: pub, schema: hidden }, async (request, reply) => {
      const file = await decoders.load((request.params as { '*': string })['*']);
      if (!file) throw notFound('decoder');
      reply.header('Access-Control-Allow-Origin', '*');
      reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Cache-Control', DECODER_CACHE);
      reply.header('ETag', file.etag);
      reply.type(file.contentType);
      if (request.headers['if-none-match'] === file.etag) return reply.status(304).send();
      return reply.send(file.body);
    });

    // The page runs /embed.js only; models, textures and posters come from this API or its storage.
    const assetOrigins = [...new Set([new URL(deps.config.publicUrl).origin, new URL(deps.storage.publicUrl('x')).origin])];
    const demoCsp = contentSecurityPolicy({
      ...VIEWER_SOURCES,
      'script-src': [...VIEWER_SOURCES['script-src'], ...assetOrigins],
      'img-src': [...VIEWER_SOURCES['img-src'], ...assetOrigins],
      'connect-src': [...VIEWER_SOURCES['connect-src'], ...assetOrigins],
    });

    app.get('/demo/:productId', { config: pub, schema: hidden }, async (request, reply) => {
      setPageSecurityHeaders(reply, demoCsp);
      const { productId } = request.params as { productId: string };
      const page = productId.length <= 100 ? await demo.page(productId) : null;
      reply.header('Cache-Control', 'no-store');
      if (!page) {
        if (!wantsHtml(request)) return sendError(reply, 404, 'not_found', 'No published product with this id in the demo organization.', null);
        return reply.status(404).type('text/html; charset=utf-8').send(demoNotFoundHtml());
      }
      return reply.type('text/html; charset=utf-8').send(
        demoPageHtml({
          productId: page.product.id,
          title: page.product.title,
          publishableKey: page.publishableKey,
          scriptPath: versionedPath,
          publicUrl: deps.config.publicUrl,
        }),
      );
    });
  };
