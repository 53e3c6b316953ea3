import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';
import { allAllowedDomains } from '../modules/projects/projects.repo.js';
import { originAllowed } from './origins.js';

const CACHE_MS = 5_000;

/**
 * Only the publishable-key routes are meant for browsers. A preflight carries no key, so it is answered
 * for an origin some project allows; the real request is then checked against the key's own project.
 */
export function registerCors(app: FastifyInstance, deps: Deps, browserRoutes: RegExp[]) {
  let cached: { at: number; domains: string[] } | null = null;
  const domains = async () => {
    if (!cached || Date.now() - cached.at > CACHE_MS) {
      cached = { at: Date.now(), domains: await allAllowedDomains(deps.database.db) };
    }
    return cached.domains;
  };

  app.options('/*', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const origin = request.headers.origin;
    const path = request.url.split('?')[0];
    reply.header('Vary', 'Origin');
    if (origin && browserRoutes.some((r) => r.test(path)) && originAllowed(origin, await domains())) {
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      reply.header('Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key');
      reply.header('Access-Control-Max-Age', '600');
    }
    return reply.status(204).send();
  });
}
