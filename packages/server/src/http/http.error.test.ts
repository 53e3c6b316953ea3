import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { bearer, createTestApp, type TestApp } from '../test/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ PLINTH_BODY_LIMIT_BYTES: '65536' });
});
afterAll(async () => t?.close());

const key = () => bearer(t.org.secret_key);

describe('error envelope', () => {
  it('unknown route: 404 not_found with request id header and body', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/nope', headers: key() });
    expect(res.statusCode).toBe(404);
    const body = res.json();
    expect(body.error.code).toBe('not_found');
    expect(body.error.request_id).toBe(res.headers['x-request-id']);
    expect(body.error).toHaveProperty('details');
  });

  it('malformed JSON: 400 invalid_request', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/projects',
      headers: { ...key(), 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
  });

  it('wrong types, missing and unknown fields: 422 with every path', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/projects', headers: key(), payload: { allowed_domains: 'x', extra: 1 } });
    expect(res.statusCode).toBe(422);
    const { code, details } = res.json().error;
    expect(code).toBe('validation_failed');
    const paths = details.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(['body.allowed_domains', 'body.extra', 'body.name']);
  });

  it('no coercion in bodies: a number where a string belongs is 422', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/projects', headers: key(), payload: { name: 12 } });
    expect(res.statusCode).toBe(422);
  });

  it('query strings are validated: limit over 100 is 422', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/projects?limit=1000', headers: key() });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details.errors[0].path).toBe('query.limit');
  });

  it('a body over the limit: 413 payload_too_large', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/projects',
      headers: { ...key(), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(70_000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('payload_too_large');
  });

  it('a 50 MB body is refused with 413 without being buffered whole', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/projects',
      headers: { ...key(), 'content-type': 'application/json' },
      payload: Buffer.alloc(50 * 1024 * 1024, 0x20),
    });
    expect(res.statusCode).toBe(413);
  });

  it('an unexpected failure: 500 internal_error with no internals', async () => {
    const app = await buildApp(t.deps);
    app.get('/v1/boom', { config: { auth: 'public' } }, async () => {
      throw new Error('secret database detail at /var/lib/x');
    });
    await app.ready();
    const res = await app.inject({ method: 'GET', url: '/v1/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json().error.code).toBe('internal_error');
    expect(res.body).not.toContain('secret database detail');
    expect(res.body).not.toContain('/var/lib');
    await app.close();
  });

  it('unsupported content type: 415', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/projects',
      headers: { ...key(), 'content-type': 'text/csv' },
      payload: 'a,b',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('unsupported_media_type');
  });

  it('every response carries X-Request-Id, success included', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/health' });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });
});

describe('OpenAPI', () => {
  it('serves an OpenAPI 3.1 document naming every /v1 route', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    for (const path of ['/v1/health', '/v1/api_keys', '/v1/api_keys/{id}', '/v1/projects', '/v1/projects/{id}']) {
      expect(doc.paths).toHaveProperty([path]);
    }
    const params = doc.paths['/v1/projects'].get.parameters as { name: string; required?: boolean }[];
    expect(params.find((p) => p.name === 'limit')?.required).toBe(false);
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });
});

describe('health', () => {
  it('reports database, storage and jobs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/health' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('ok');
    expect(body.checks.database.status).toBe('ok');
    expect(body.checks.storage.status).toBe('ok');
    expect(body.checks.jobs.status).toBe('ok');
  });

  it('answers 503 in the envelope when the database is down', async () => {
    const broken = await createTestApp();
    const realPing = broken.deps.database.ping;
    broken.deps.database.ping = async () => {
      throw new Error('connection refused');
    };
    const res = await broken.app.inject({ method: 'GET', url: '/v1/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('service_unavailable');
    expect(res.json().error.details.checks.database.status).toBe('fail');
    expect(res.body).not.toContain('connection refused');
    broken.deps.database.ping = realPing;
    await broken.close();
  });
});
