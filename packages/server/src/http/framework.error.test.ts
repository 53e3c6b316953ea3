import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../test/app.js';

/**
 * The errors the HTTP framework and Node's parser raise before any route runs answer the same
 * envelope with an X-Request-Id, and never echo the raw input. Sent as raw bytes over a socket,
 * since a well-behaved client library would refuse to send most of them.
 */
let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => t?.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` as is and reads the answer until the server closes or the body is complete. */
function raw(request: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    };
    socket.on('data', (c) => {
      chunks.push(c);
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const length = /content-length:\s*(\d+)/i.exec(text.slice(0, split))?.[1];
      if (split >= 0 && length !== undefined && Buffer.byteLength(text.slice(split + 4), 'latin1') >= Number(length)) {
        socket.destroy();
        finish();
      }
    });
    socket.on('end', finish);
    socket.on('error', reject);
    socket.write(request);
  });
}

function expectEnvelope(res: RawAnswer, status: number, code: string, mustNotEcho: string[] = []) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(body.error).toHaveProperty('details');
  expect(body.error.request_id).toMatch(/^req_/);
  expect(res.headers['x-request-id']).toBe(body.error.request_id);
  for (const s of mustNotEcho) expect(res.body).not.toContain(s);
}

const auth = `Authorization: Bearer ${'SK'}\r\n`;

describe('framework errors answer the envelope', () => {
  it('a path id over 100 characters: 414, the path not echoed', async () => {
    const id = `prod_${'Z'.repeat(150)}`;
    const res = await raw(`GET /v1/products/${id} HTTP/1.1\r\nHost: x\r\n${auth.replace('SK', t.org.secret_key)}Connection: close\r\n\r\n`);
    expectEnvelope(res, 414, 'invalid_request', ['ZZZZZZZZZZ']);
  });

  it('a 20 KB query string: 431 (or 414), the query not echoed', async () => {
    const res = await raw(`GET /v1/products?tag=${'Q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect([414, 431]).toContain(res.status);
    expectEnvelope(res, res.status, 'invalid_request', ['QQQQQQQQQQ']);
  });

  it('headers over the size limit: 431', async () => {
    const res = await raw(`GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'H'.repeat(20_000)}\r\nConnection: close\r\n\r\n`);
    expectEnvelope(res, 431, 'invalid_request', ['HHHHHHHHHH']);
  });

  it('a NUL in a header: 400, nothing echoed', async () => {
    const res = await raw(Buffer.from(`GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Evil: ab\u0000cdSECRETMARK\r\nConnection: close\r\n\r\n`, 'latin1'));
    expectEnvelope(res, 400, 'invalid_request', ['SECRETMARK']);
  });

  it('a method the parser does not know: 400 (or 405), nothing echoed', async () => {
    const res = await raw(`BREWCOFFEE /v1/products HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect([400, 405]).toContain(res.status);
    expectEnvelope(res, res.status, res.status === 405 ? 'method_not_allowed' : 'invalid_request', ['BREWCOFFEE']);
  });

  it('a known method on no route: 404 that does not echo the path', async () => {
    const res = await raw(`PUT /v1/ECHOMARK HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    expectEnvelope(res, 404, 'not_found', ['ECHOMARK']);
    const get = await raw(`GET /v1/ECHOMARK HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expectEnvelope(get, 404, 'not_found', ['ECHOMARK']);
  });

  it('a malformed percent-encoding in the path: 400 envelope, not echoed', async () => {
    const res = await raw(`GET /v1/products/%E0%A4%AECHOMARK HTTP/1.1\r\nHost: x\r\n${auth.replace('SK', t.org.secret_key)}Connection: close\r\n\r\n`);
    expect([400, 404]).toContain(res.status);
    expectEnvelope(res, res.status, res.status === 404 ? 'not_found' : 'invalid_request', ['ECHOMARK']);
  });

  it('bad JSON and an unknown content type: envelope, the header not echoed', async () => {
    const bad = await raw(
      `POST /v1/projects HTTP/1.1\r\nHost: x\r\n${auth.replace('SK', t.org.secret_key)}Content-Type: application/json\r\nContent-Length: 9\r\nConnection: close\r\n\r\n{"name": `,
    );
    expectEnvelope(bad, 400, 'invalid_request');
    const type = await raw(
      `POST /v1/projects HTTP/1.1\r\nHost: x\r\n${auth.replace('SK', t.org.secret_key)}Content-Type: text/x-ECHOMARK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi`,
    );
    expectEnvelope(type, 415, 'unsupported_media_type', ['ECHOMARK']);
  });
});

describe('numbers are bounded', () => {
  it('offset=9223372036854775807 on every list endpoint: 422 naming query.offset, never 500', async () => {
    const lists = ['/v1/products', '/v1/products/tags', '/v1/projects', '/v1/api_keys', '/v1/webhooks', '/v1/exports'];
    for (const url of lists) {
      const res = await t.app.inject({ method: 'GET', url: `${url}?offset=9223372036854775807`, headers: bearer(t.org.secret_key) });
      if (res.statusCode === 404) continue; // a list this build does not have
      expect(res.statusCode, url).toBe(422);
      expect(res.json().error.details.errors.map((e: { path: string }) => e.path)).toContain('query.offset');
    }
  });

  it('offset 10,000,000 is the largest accepted', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/v1/projects?offset=10000000', headers: bearer(t.org.secret_key) });
    expect(ok.statusCode).toBe(200);
    const over = await t.app.inject({ method: 'GET', url: '/v1/projects?offset=10000001', headers: bearer(t.org.secret_key) });
    expect(over.statusCode).toBe(422);
  });

  it('every integer and number in a query, path or body of the OpenAPI document has a maximum', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const unbounded: string[] = [];
    const walk = (schema: Record<string, unknown> | undefined, where: string) => {
      if (!schema || typeof schema !== 'object') return;
      const type = schema.type;
      const numeric = type === 'integer' || type === 'number' || (Array.isArray(type) && type.some((x) => x === 'integer' || x === 'number'));
      if (numeric && schema.maximum === undefined && schema.exclusiveMaximum === undefined && schema.enum === undefined && schema.const === undefined) {
        unbounded.push(where);
      }
      for (const [k, v] of Object.entries(schema.properties ?? {})) walk(v as Record<string, unknown>, `${where}.${k}`);
      if (schema.items) walk(schema.items as Record<string, unknown>, `${where}[]`);
      for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
        for (const [i, s] of ((schema[key] as Record<string, unknown>[] | undefined) ?? []).entries()) walk(s, `${where}|${i}`);
      }
    };
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const p of (op.parameters as { name: string; in: string; schema: Record<string, unknown> }[] | undefined) ?? []) {
          walk(p.schema, `${method.toUpperCase()} ${path} ${p.in}.${p.name}`);
        }
        const body = (op.requestBody as { content?: Record<string, { schema: Record<string, unknown> }> } | undefined)?.content;
        for (const c of Object.values(body ?? {})) walk(c.schema, `${method.toUpperCase()} ${path} body`);
      }
    }
    expect(unbounded).toEqual([]);
  });
});

describe('strings are valid Unicode', () => {
  it('a lone surrogate is refused with 422 naming the path, and nothing is stored', async () => {
    const payload = '{"name":"a\\ud800b"}';
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/projects',
      headers: { ...bearer(t.org.secret_key), 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('validation_failed');
    expect(res.json().error.details.errors).toEqual([{ path: 'body.name', message: expect.stringMatching(/surrogate/) }]);
    const nested = await t.app.inject({
      method: 'POST',
      url: '/v1/projects',
      headers: { ...bearer(t.org.secret_key), 'content-type': 'application/json' },
      payload: '{"name":"ok","allowed_domains":["https://a.example","\\udc00"]}',
    });
    expect(nested.statusCode).toBe(422);
    expect(nested.json().error.details.errors[0].path).toBe('body.allowed_domains[1]');
  });

  it('a proper pair (an emoji written as escapes) is accepted', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/projects',
      headers: { ...bearer(t.org.secret_key), 'content-type': 'application/json' },
      payload: '{"name":"shop \\ud83d\\ude00"}',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().name).toBe('shop 😀');
  });
});
