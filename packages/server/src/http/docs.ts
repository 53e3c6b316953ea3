import { createHash } from 'node:crypto';
import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { contentSecurityPolicy, setPageSecurityHeaders } from './security-headers.js';

/** Plinth's colours over the reference UI's defaults; nothing is fetched from elsewhere (fonts included). */
const BRAND_CSS = `
.light-mode, .dark-mode {
  --scalar-color-accent: #b5542d;
  --scalar-font: system-ui, -apple-system, "Segoe UI", sans-serif;
  --scalar-font-code: ui-monospace, "SFMono-Regular", Menlo, monospace;
}
.light-mode { --scalar-background-1: #fbfaf7; --scalar-background-2: #f4f2ec; }
`;

const inlineScripts = (html: string) => [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');

/**
 * `/docs`: the API reference (Scalar, served from this server's own copy), branded, with the getting-started
 * guide as its first section (the document's description). Its one inline script is allowed by hash; scripts,
 * styles, fonts and the document all come from this origin.
 */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  // Only the reference's own routes get the page headers; added before they are made, so no other route pays.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/docs')) return;
    route.onSend = [...[route.onSend ?? []].flat(), pageHeaders as never];
  });
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: {
      url: '/v1/openapi.json',
      withDefaultFonts: false,
      customCss: BRAND_CSS,
      metaData: { title: 'Plinth API reference' },
      defaultOpenAllTags: false,
      // A self-hosted reference: no hosted AI, MCP or developer-tool panels that would call out to a vendor.
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
    } as never,
  });
}

function pageHeaders(_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) {
  const html = typeof payload === 'string' && String(reply.getHeader('content-type') ?? '').startsWith('text/html');
  const hashes = html ? inlineScripts(payload as string).map((s) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`) : [];
  setPageSecurityHeaders(
    reply,
    contentSecurityPolicy({
      'script-src': hashes,
      // The reference UI styles its components at run time.
      'style-src': ["'unsafe-inline'"],
      'font-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'img-src': ['blob:'],
    }),
  );
  done(null, payload);
}
