import { Document, NodeIO } from '@gltf-transform/core';
import { getBounds } from '@gltf-transform/functions';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateGlb } from '../gltf/model-validate.js';
import { createExternalGenerator, ExternalServiceUnavailable, type ExternalFetch } from './external-generator.js';
import { MediaError } from '../errors.js';
import { type GeneratorView } from './generator.js';

const API_KEY = 'test-key-123';

/** A 2 × 2 × 1 unit box sitting off-centre, in the service's own units. */
async function serviceGlb(): Promise<Buffer> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const [x0, y0, z0, x1, y1, z1] = [-0.5, -1, -0.25, 1.5, 1, 0.75];
  const corners = [];
  for (let i = 0; i < 8; i++) corners.push(i & 1 ? x1 : x0, i & 2 ? y1 : y0, i & 4 ? z1 : z0);
  // Six faces, outward winding, as triangles over the corner indices.
  const faces = [0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5];
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(new Float32Array(corners)).setBuffer(buffer))
    .setIndices(doc.createAccessor().setType('SCALAR').setArray(new Uint16Array(faces)).setBuffer(buffer))
    .setMaterial(doc.createMaterial('grey'));
  const node = doc.createNode('box').setMesh(doc.createMesh('box').addPrimitive(prim));
  doc.getRoot().setDefaultScene(doc.createScene().addChild(node));
  return Buffer.from(await new NodeIO().writeBinary(doc));
}

type Mode = 'ok' | 'fail' | 'stuck' | 'elsewhere' | 'garbage';

interface Recorded {
  method: string;
  url: string;
  authorization?: string;
  body?: { images: string[]; hints: Record<string, unknown> };
}

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

describe('external generator', () => {
  let mode: Mode;
  let requests: Recorded[];
  let polls: number;
  let glb: Buffer;
  let service: { server: Server; url: string };
  let storage: { server: Server; url: string };

  const fetchFn: ExternalFetch = (url, init) => fetch(url, init);
  const views: GeneratorView[] = [
    { image: Buffer.from('photo one'), mask: Buffer.alloc(0), azimuthDeg: 0 },
    { image: Buffer.from('photo two'), mask: Buffer.alloc(0), azimuthDeg: 90 },
  ];
  const generator = (extra: { timeoutMs?: number; apiKey?: string } = {}) =>
    createExternalGenerator({ baseUrl: `${service.url}/`, apiKey: extra.apiKey ?? API_KEY, fetch: fetchFn, pollIntervalMs: 10, timeoutMs: extra.timeoutMs ?? 5000 });

  beforeAll(async () => {
    glb = await serviceGlb();
    storage = await listen((req, res) => {
      requests.push({ method: req.method!, url: `storage${req.url}`, authorization: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'model/gltf-binary' }).end(glb);
    });
    service = await listen(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks).toString();
      requests.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body: raw ? JSON.parse(raw) : undefined });
      if (req.headers.authorization !== `Bearer ${API_KEY}`) return send(res, 401, { error: 'invalid api key' });
      if (req.method === 'POST' && req.url === '/v1/jobs') return send(res, 201, { id: 'job/1' });
      if (req.method === 'GET' && req.url === `/v1/jobs/${encodeURIComponent('job/1')}`) {
        polls++;
        if (mode === 'fail' && polls >= 2) return send(res, 200, { status: 'failed', error: 'could not find the product' });
        if (mode === 'stuck' || polls < 3) return send(res, 200, { status: polls === 1 ? 'queued' : 'running', progress: polls === 1 ? 0 : 50 });
        const result_url = mode === 'elsewhere' ? `${storage.url}/bucket/model.glb?sig=abc` : '/results/job-1.glb';
        return send(res, 200, { status: 'succeeded', progress: 100, result_url });
      }
      if (req.method === 'GET' && req.url === '/results/job-1.glb') {
        return res.writeHead(200, { 'content-type': 'model/gltf-binary' }).end(mode === 'garbage' ? Buffer.from('not a glb at all') : glb);
      }
      send(res, 404, { error: 'not found' });
    });
  });

  afterAll(async () => {
    await Promise.all([service, storage].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  });

  beforeEach(() => {
    requests = [];
    polls = 0;
  });

  it('submits, polls and downloads, then places the model in metres on the floor', async () => {
    mode = 'ok';
    const steps: [number, string][] = [];
    const result = await generator().generate(views, { heightMetres: 0.3 }, (p, s) => {
      steps.push([p, s]);
    });
    expect(result.method).toBe('external');
    expect(result.triangles).toBe(12);
    // 2 × 2 × 1 units scaled so the height is 0.3 m.
    expect(result.dimensions.width).toBeCloseTo(0.3, 6);
    expect(result.dimensions.height).toBeCloseTo(0.3, 6);
    expect(result.dimensions.depth).toBeCloseTo(0.15, 6);

    const doc = await new NodeIO().readBinary(new Uint8Array(result.glb));
    const { min, max } = getBounds(doc.getRoot().getDefaultScene()!);
    expect(min[1]).toBeCloseTo(0, 6);
    expect(min[0] + max[0]).toBeCloseTo(0, 6);
    expect(min[2] + max[2]).toBeCloseTo(0, 6);
    expect((await validateGlb(result.glb)).errors).toBe(0);

    const [submit, ...rest] = requests;
    expect(submit).toMatchObject({ method: 'POST', url: '/v1/jobs', authorization: `Bearer ${API_KEY}` });
    expect(submit.body!.images).toEqual(views.map((v) => v.image.toString('base64')));
    expect(submit.body!.hints).toMatchObject({ heightMetres: 0.3, azimuthsDeg: [0, 90], triangleBudget: 20000 });
    expect(rest.filter((r) => r.url.startsWith('/v1/jobs/')).length).toBe(3);
    expect(rest.at(-1)).toMatchObject({ url: '/results/job-1.glb', authorization: `Bearer ${API_KEY}` });
    expect(steps.map(([p]) => p)).toEqual([...steps.map(([p]) => p)].sort((a, b) => a - b));
    expect(steps).toContainEqual([45, 'generating']);
    expect(steps.at(-1)).toEqual([100, 'done']);
  });

  it('does not send the API key to a result URL on another host', async () => {
    mode = 'elsewhere';
    const result = await generator().generate(views, {});
    const download = requests.find((r) => r.url.startsWith('storage/'));
    expect(download).toBeDefined();
    expect(download!.authorization).toBeUndefined();
    // 2 units is a plausible size in metres, so without a height it is kept, only placed.
    expect(result.dimensions.height).toBeCloseTo(2, 6);
  });

  it('reports a failed job as external_failed with the service’s reason', async () => {
    mode = 'fail';
    const run = generator().generate(views, {});
    await expect(run).rejects.toBeInstanceOf(MediaError);
    await expect(run).rejects.toMatchObject({ reason: 'external_failed', message: expect.stringContaining('could not find the product') });
  });

  it('gives up with external_timeout when the job never finishes', async () => {
    mode = 'stuck';
    const started = Date.now();
    await expect(generator({ timeoutMs: 300 }).generate(views, {})).rejects.toMatchObject({ reason: 'external_timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(polls).toBeGreaterThan(2);
  });

  it('refuses a model that is not valid glTF', async () => {
    mode = 'garbage';
    await expect(generator().generate(views, {})).rejects.toMatchObject({ reason: 'external_invalid_model' });
  });

  it('maps a refused API key to external_rejected', async () => {
    mode = 'ok';
    await expect(generator({ apiKey: 'wrong' }).generate(views, {})).rejects.toMatchObject({
      reason: 'external_rejected',
      message: expect.stringContaining('invalid api key'),
    });
  });

  it('treats an unreachable service as transient', async () => {
    const closed = await listen((_req, res) => res.end());
    await new Promise((resolve) => closed.server.close(resolve));
    const offline = createExternalGenerator({ baseUrl: closed.url, apiKey: API_KEY, fetch: fetchFn, pollIntervalMs: 10, timeoutMs: 2000 });
    await expect(offline.generate(views, {})).rejects.toBeInstanceOf(ExternalServiceUnavailable);
  });

  it('stops polling when the caller aborts', async () => {
    mode = 'stuck';
    const controller = new AbortController();
    const run = generator().generate(views, {}, (percent, step) => {
      if (step === 'generating') controller.abort();
    }, controller.signal);
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
  });
});
