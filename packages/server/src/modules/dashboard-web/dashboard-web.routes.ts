import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, notFound } from '../../core/errors.js';

/** Built by `vite build` in packages/dashboard; the same relative place from src/ and from dist/. */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../../../dashboard/dist/', import.meta.url));

/** Prefixes that belong to the API: an unknown path there is a JSON 404, never the dashboard's page. */
const API_PREFIXES = /^\/(v1|auth|files|embed|embed\.js|docs|demo|dashboard\/api|capture-mat)(\/|$|\.|\?)/;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The dashboard runs only its own bundle. It shows assets from this origin (/files) and the embed's
 * model viewer (/embed.js), which decodes models in blob: workers; nothing may frame it.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  // The 3D viewer compiles its mesh decoders (Draco, meshopt) to WebAssembly; nothing else is evaluated.
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' blob: data:",
  "worker-src 'self' blob:",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(reply: FastifyReply) {
  reply.header('Content-Security-Policy', DASHBOARD_CSP);
  reply.header('X-Frame-Options', 'DENY');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Referrer-Policy', 'same-origin');
}

async function readOrNull(path: string): Promise<Buffer | null> {
  return readFile(path).catch(() => null);
}

/**
 * Serves the built dashboard at `/`: hashed files under /assets forever, everything else briefly, and
 * index.html (never cached, so a new release is picked up at once) for every client-side route.
 */
export const dashboardWebRoutes = (dir: string = DASHBOARD_DIR): FastifyPluginAsync => async (app) => {
  const opts = { config: { auth: 'public' as const }, schema: { hide: true } };

  const sendIndex = async (reply: FastifyReply) => {
    const html = await readOrNull(join(dir, 'index.html'));
    if (!html) throw notFound('page: the dashboard is not built (run npm run build)');
    secure(reply);
    reply.header('Cache-Control', 'no-cache');
    return reply.type(TYPES['.html']).send(html);
  };

  app.get('/', opts, async (_request, reply) => sendIndex(reply));

  app.get('/*', opts, async (request, reply) => {
    const path = request.url.split('?')[0];
    if (API_PREFIXES.test(path)) throw new AppError('not_found', 'No route matches this method and path.');
    const ext = extname(path);
    if (ext) {
      const rel = normalize(decodeURIComponent(path)).replace(/^([/\\])+/, '');
      if (rel.startsWith('..')) throw notFound('file');
      const body = await readOrNull(join(dir, rel));
      if (!body) throw notFound('file');
      secure(reply);
      reply.header('Cache-Control', rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
      return reply.type(TYPES[ext] ?? 'application/octet-stream').send(body);
    }
    return sendIndex(reply);
  });
};
