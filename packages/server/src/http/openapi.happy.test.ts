import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../test/app.js';
import { startFixtureServer, type FixtureServer } from '../test/fixture-server.js';
import { TEST_ALLOW } from '../test/products.js';
import { operationIdFor } from './openapi-document.js';

let t: TestApp;
let doc: Record<string, any>;
let web: FixtureServer;
beforeAll(async () => {
  web = await startFixtureServer();
  // A real deployment's public URL: the document's server is where the API is reached.
  t = await createTestApp({ ...TEST_ALLOW, PUBLIC_URL: 'https://api.plinth.test' });
  doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
});
afterAll(async () => {
  await t?.close();
  await web?.close();
});

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const operations = () =>
  Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })));

describe('the served OpenAPI document', () => {
  it('names every operation with a unique operationId', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.length).toBeGreaterThan(30);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]+$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([operationIdFor('get', '/v1/products'), operationIdFor('post', '/v1/products/{id}/order'), operationIdFor('get', '/v1/products/{id}/images/{image_id}')]).toEqual([
      'listProducts',
      'orderProduct',
      'retrieveProductImage',
    ]);
  });

  it('documents the headers of every answer and the Idempotency-Key of every POST', () => {
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        expect(response.headers?.['X-Request-Id'], `${method} ${path} ${status}`).toBeDefined();
        if (status === '429') expect(response.headers['Retry-After']).toBeDefined();
      }
      if (method === 'post' && path.startsWith('/v1/')) {
        expect(op.parameters?.some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key'), `${method} ${path}`).toBe(true);
        const ok = Object.entries<any>(op.responses).find(([s]) => s.startsWith('2'));
        expect(ok?.[1].headers['Idempotent-Replayed'], `${method} ${path}`).toBeDefined();
      }
    }
    expect(doc.components.headers['RateLimit-Remaining']).toBeDefined();
  });

  it('states the rules the server enforces beyond field shapes', () => {
    const described = (method: string, path: string) => String(doc.paths[path][method].description);
    expect(described('post', '/v1/products')).toMatch(/Exactly one source/);
    expect(described('post', '/v1/products/{id}/model/rescale')).toMatch(/exactly one of `dimensions`/);
    expect(described('get', '/v1/usage')).toMatch(/366 days/);
    expect(described('post', '/v1/webhooks')).toMatch(/https/);
    expect(described('post', '/v1/api_keys')).toMatch(/fixed list/);
  });

  it('every documented request example is sent and accepted', async () => {
    let sent = 0;
    for (const { path, method, op } of operations()) {
      const examples = op.requestBody?.content?.['application/json']?.examples ?? {};
      for (const [name, example] of Object.entries<any>(examples)) {
        // Sent as documented, only pointed at a local server: this machine resolves no public names.
        const payload = JSON.parse(JSON.stringify(example.value).replaceAll('https://shop.example', web.url('').replace(/\/$/, '')));
        const res = await t.app.inject({ method: method.toUpperCase() as 'POST', url: path, headers: bearer(t.org.secret_key), payload });
        expect(res.statusCode, `${method} ${path} example ${name}: ${res.body}`).toBeLessThan(300);
        sent++;
      }
    }
    expect(sent).toBeGreaterThanOrEqual(3);
  });

  it('lints clean under Redocly recommended and Spectral spectral:oas: no error, no warning', async () => {
    const text = JSON.stringify(doc);
    const redocly = await lintFromString({ source: text, absoluteRef: 'openapi.json', config: await createConfig({ extends: ['recommended'] }) });
    const spectral = new spectralCore.Spectral();
    spectral.setRuleset({ extends: [oas as never] } as never);
    // A string is parsed as YAML, of which JSON is a subset.
    const findings = await spectral.run(text);
    const summary = (list: Array<{ severity: unknown; ruleId?: string; code?: unknown }>) =>
      list.reduce<Record<string, number>>((acc, p) => ((acc[`${String(p.severity)} ${String(p.ruleId ?? p.code)}`] = (acc[`${String(p.severity)} ${String(p.ruleId ?? p.code)}`] ?? 0) + 1), acc), {});
    console.log('redocly', JSON.stringify(summary(redocly)), '\nspectral', JSON.stringify(summary(findings as never)));
    expect(summary(redocly)).toEqual({});
    // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
    expect(summary((findings as Array<{ severity: number; code: unknown }>).filter((f) => f.severity <= 1) as never)).toEqual({});
  });
});
