import type { FastifyReply } from 'fastify';

/**
 * Headers for the HTML pages Plinth serves itself (the demo page, the API reference, the dashboard):
 * nothing may frame them (clickjacking), scripts come from this origin only, and nothing is sniffed.
 * `policy` builds the Content-Security-Policy from a strict base plus what a page needs on top.
 */
export type CspDirectives = Record<string, string[]>;

const STRICT_BASE: CspDirectives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/** Each directive of `extra` adds sources to the base's (frame-ancestors and object-src stay 'none'). */
export function contentSecurityPolicy(extra: CspDirectives = {}): string {
  const merged: CspDirectives = { ...STRICT_BASE };
  for (const [name, sources] of Object.entries(extra)) {
    if (name === 'frame-ancestors' || name === 'object-src') continue;
    merged[name] = [...new Set([...(merged[name] ?? []).filter((s) => s !== "'none'"), ...sources])];
  }
  return Object.entries(merged)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/**
 * The model viewer (/embed.js) decodes models in blob: workers, fetches models and textures as blobs and
 * compiles its mesh decoders to WebAssembly ('wasm-unsafe-eval' allows that, not JavaScript eval).
 */
export const VIEWER_SOURCES: CspDirectives = {
  'script-src': ["'wasm-unsafe-eval'"],
  'style-src': ["'unsafe-inline'"],
  'img-src': ['blob:'],
  'connect-src': ["'self'", 'blob:', 'data:'],
  'worker-src': ["'self'", 'blob:'],
};

export function setPageSecurityHeaders(reply: FastifyReply, csp: string): void {
  reply.header('Content-Security-Policy', csp);
  reply.header('X-Frame-Options', 'DENY');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Referrer-Policy', 'same-origin');
}
