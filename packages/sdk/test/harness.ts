import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { createTestApp, type TestApp } from '../../server/src/test/app.js';
import type { Deps } from '../../server/src/deps.js';
import { Plinth, type ClientOptions, type Fetch } from '../src/index.js';
import type { OperationKey } from '../src/generated/openapi.js';

export interface Api {
  t: TestApp;
  /** http://127.0.0.1:<port>, a real listening server */
  base: string;
  client(options?: Partial<ClientOptions>): Plinth;
  close(): Promise<void>;
}

/** A real Plinth on a temp SQLite (or this run's PostgreSQL), listening on loopback. */
export async function startApi(env: Record<string, string> = {}, overrides: Partial<Deps> = {}): Promise<Api> {
  const t = await createTestApp(env, overrides);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  return {
    t,
    base,
    client: (options = {}) => new Plinth({ apiKey: t.org.secret_key, baseURL: base, ...options }),
    close: () => t.close(),
  };
}

/** The document the server serves, fetched as any client would. */
export async function servedOpenAPI(base: string): Promise<OpenAPIDocument> {
  const res = await fetch(`${base}/v1/openapi.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as OpenAPIDocument;
}

export interface OpenAPIDocument {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object }> }> }>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every `METHOD /path` the document describes. */
export function operationsOf(doc: OpenAPIDocument): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path}`));
}

/**
 * Checks values the SDK returned against the response schema the document gives for that
 * operation and status, with the same validator family the server uses (ajv + formats).
 */
export function contract(doc: OpenAPIDocument) {
  const ajv = addFormats.default(new Ajv.default({ strict: false, allErrors: true }));
  const compiled = new Map<string, ValidateFunction>();
  return (op: OperationKey, status: number | '4XX' | '5XX', value: unknown) => {
    const id = `${op} ${status}`;
    let validate = compiled.get(id);
    if (!validate) {
      const [method, path] = op.split(' ');
      const schema = doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)]?.content?.['application/json']?.schema;
      if (!schema) throw new Error(`The OpenAPI document has no JSON schema for ${id}`);
      validate = ajv.compile(schema);
      compiled.set(id, validate);
    }
    // Round-trip through JSON: a Page instance is checked as the plain list body it stands for.
    const plain = JSON.parse(JSON.stringify(value));
    expect(validate(plain), `${id}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  };
}

/** Maps a concrete request (`GET /v1/products/prod_1`) to its operation; literal segments beat parameters. */
export function operationMatcher(ops: string[]) {
  const patterns = ops
    .map((op) => {
      const [method, path] = op.split(' ');
      const params = (path.match(/\{/g) ?? []).length;
      return { op, method, params, re: new RegExp(`^${path.replace(/\{[^/]+\}/g, '[^/]+')}$`) };
    })
    .sort((a, b) => a.params - b.params);
  return (method: string, pathname: string) => patterns.find((p) => p.method === method && p.re.test(pathname))?.op ?? null;
}

export interface Recorded {
  method: string;
  url: URL;
  headers: Headers;
  status?: number;
}

/** A fetch that records what the SDK sent and what came back, then behaves like the real one. */
export function recordingFetch(log: Recorded[], inner: Fetch = (url, init) => fetch(url, init)): Fetch {
  return async (url, init) => {
    const entry: Recorded = { method: init.method ?? 'GET', url: new URL(url), headers: new Headers(init.headers) };
    log.push(entry);
    const response = await inner(url, init);
    entry.status = response.status;
    return response;
  };
}

/**
 * Wraps every method of every resource (and sub-resource) to record that it was called, so a
 * test can prove no method of the SDK went untried.
 */
export function instrument(client: Plinth): { called: Set<string>; all: Set<string> } {
  const called = new Set<string>();
  const all = new Set<string>();
  const wrap = (name: string, target: object) => {
    const proto = Object.getPrototypeOf(target);
    for (const method of Object.getOwnPropertyNames(proto)) {
      if (method === 'constructor' || typeof proto[method] !== 'function') continue;
      all.add(`${name}.${method}`);
      const original = proto[method] as (...args: unknown[]) => unknown;
      Object.defineProperty(target, method, {
        value: (...args: unknown[]) => {
          called.add(`${name}.${method}`);
          return original.apply(target, args);
        },
      });
    }
    for (const [key, value] of Object.entries(target)) {
      if (key !== 'client' && value && typeof value === 'object' && Object.getPrototypeOf(value) !== Object.prototype) wrap(`${name}.${key}`, value);
    }
  };
  for (const [key, value] of Object.entries(client)) if (value && typeof value === 'object') wrap(key, value);
  return { called, all };
}

export interface Stub {
  base: string;
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

/** A node:http server whose answers the test scripts; `handler` returning null hangs the request. */
export async function startStub(handler: (n: number, req: IncomingMessage, res: ServerResponse) => void): Promise<Stub> {
  const requests: Stub['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      handler(requests.length, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_stub${status}`, ...headers }).end(JSON.stringify(body));

/** A public address the guarded fetcher accepts at input time without DNS (nothing fetches it in these tests). */
export const PUBLIC_URL = (path: string) => `https://93.184.216.34${path}`;

/**
 * A 0.3 × 0.2 × 0.1 m box as GLB, stored where seedProduct's model record points, so operations that
 * rewrite the model (rescale) have real bytes to work on.
 */
export async function storeBoxModel(t: TestApp, orgId: string, productId: string): Promise<void> {
  const { Document, NodeIO } = await import('@gltf-transform/core');
  const doc = new Document();
  const buffer = doc.createBuffer();
  const [x, y, z] = [0.15, 0.1, 0.05];
  const corners = [-x, -y, -z, x, -y, -z, x, y, -z, -x, y, -z, -x, -y, z, x, -y, z, x, y, z, -x, y, z];
  const faces = [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5];
  const position = doc.createAccessor().setType('VEC3').setArray(new Float32Array(corners)).setBuffer(buffer);
  const indices = doc.createAccessor().setType('SCALAR').setArray(new Uint16Array(faces)).setBuffer(buffer);
  const primitive = doc.createPrimitive().setAttribute('POSITION', position).setIndices(indices).setMaterial(doc.createMaterial('wood'));
  const node = doc.createNode('box').setMesh(doc.createMesh('box').addPrimitive(primitive));
  doc.createScene('scene').addChild(node);
  const glb = await new NodeIO().writeBinary(doc);
  // Model files have random names: read the key seedProduct recorded.
  const { loadProduct } = await import('../../server/src/modules/products/products.repo.js');
  const glbKey = (await loadProduct(t.deps.database.db, productId))?.model?.glbKey;
  if (!glbKey || !glbKey.startsWith(`orgs/${orgId}/`)) throw new Error(`product ${productId} has no seeded model`);
  await t.deps.storage.put(glbKey, Buffer.from(glb), { contentType: 'model/gltf-binary' });
}
