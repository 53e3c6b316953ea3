import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderTypes } from '../scripts/generate-types.mjs';
import { servedOpenAPI, startApi, type Api } from './harness.js';

const GENERATED = new URL('../src/generated/openapi.ts', import.meta.url);

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

describe('the SDK types cannot drift from the API', () => {
  it('src/generated/openapi.ts is exactly what the served OpenAPI document renders to', async () => {
    const rendered = renderTypes(await servedOpenAPI(api.base));
    // On failure: `npm run build -w packages/server && npm run generate -w packages/sdk`, then fix what no longer compiles.
    expect(readFileSync(GENERATED, 'utf8')).toBe(rendered);
  });

  it('renders the schema features the API uses', () => {
    const source = renderTypes({
      paths: {
        '/v1/things/{id}': {
          get: {
            summary: 'Get a thing',
            parameters: [
              { in: 'path', name: 'id', required: true, schema: { type: 'string' } },
              { in: 'query', name: 'limit', required: true, schema: { type: 'integer', default: 20 } },
              { in: 'query', name: 'tag', required: false, schema: { type: 'array', items: { type: 'string' } } },
            ],
            responses: {
              200: {
                content: {
                  'application/json': {
                    schema: {
                      title: 'Thing',
                      type: 'object',
                      required: ['id', 'kind', 'note', 'meta'],
                      properties: {
                        id: { type: 'string' },
                        kind: { anyOf: [{ type: 'string', enum: ['a'] }, { type: 'string', enum: ['b'] }] },
                        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
                        meta: { type: 'object', additionalProperties: true, properties: {} },
                        'odd-name': { type: 'number', description: 'metres' },
                      },
                    },
                  },
                },
              },
              '4XX': { content: { 'application/json': { schema: { title: 'Error', type: 'object', properties: { code: { type: 'string' } } } } } },
            },
          },
        },
      },
    });
    expect(source).toContain('export interface Thing {');
    expect(source).toContain('kind: "a" | "b";');
    expect(source).toContain('note: string | null;');
    expect(source).toContain('"odd-name"?: number;');
    expect(source).toContain('export interface ErrorEnvelope {');
    expect(source).toMatch(/"GET \/v1\/things\/\{id\}": \{\n {4}path: \{\n {6}id: string;/);
    expect(source).toContain('limit?: number;');
    expect(source).toContain('200: Thing;');
  });

  it('refuses two different schemas under one title, rather than picking one', () => {
    const op = (schema: object) => ({ get: { responses: { 200: { content: { 'application/json': { schema } } } } } });
    const doc = {
      paths: {
        '/a': op({ title: 'Same', type: 'object', properties: { a: { type: 'string' } } }),
        '/b': op({ title: 'Same', type: 'object', properties: { b: { type: 'string' } } }),
      },
    };
    expect(() => renderTypes(doc)).toThrow(/Two different schemas are titled "Same"/);
  });
});
