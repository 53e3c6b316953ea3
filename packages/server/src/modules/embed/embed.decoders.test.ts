import Fastify, { type FastifyInstance } from 'fastify';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../http/error-handler.js';
import { createTestApp, type TestApp } from '../../test/app.js';
import { embedRoutes } from './embed.routes.js';

let t: TestApp;
let dir: string;
let app: FastifyInstance;
const wasm = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

beforeAll(async () => {
  t = await createTestApp();
  // A built embed in miniature: the bundle and its decoders beside it.
  dir = mkdtempSync(join(tmpdir(), 'plinth-decoders-'));
  mkdirSync(join(dir, 'decoders', 'draco'), { recursive: true });
  writeFileSync(join(dir, 'embed.js'), 'export {};\n');
  writeFileSync(join(dir, 'decoders', 'draco', 'draco_decoder.wasm'), wasm);
  writeFileSync(join(dir, 'decoders', 'draco', 'draco_wasm_wrapper.js'), 'var DracoDecoderModule;\n');
  writeFileSync(join(dir, 'decoders', 'secret.txt'), 'not for the web');
  app = Fastify();
  registerErrorHandling(app);
  await app.register(embedRoutes(t.deps, { bundlePath: join(dir, 'embed.js') }));
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the embed\'s mesh decoders', () => {
  it('serves Draco\'s WebAssembly to any shop page, with its type, CORS and a revalidating cache', async () => {
    const res = await app.inject({ method: 'GET', url: '/embed/decoders/draco/draco_decoder.wasm', headers: { origin: 'https://shop.example' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/wasm');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.rawPayload.equals(wasm)).toBe(true);
    const again = await app.inject({ method: 'GET', url: '/embed/decoders/draco/draco_decoder.wasm', headers: { 'if-none-match': String(res.headers.etag) } });
    expect(again.statusCode).toBe(304);
    const wrapper = await app.inject({ method: 'GET', url: '/embed/decoders/draco/draco_wasm_wrapper.js' });
    expect(wrapper.headers['content-type']).toMatch(/^text\/javascript/);
  });

  it('answers 404 for anything else in the folder, a path that climbs out, or a decoder not built', async () => {
    for (const url of ['/embed/decoders/secret.txt', '/embed/decoders/../embed.js', '/embed/decoders/draco/..%2F..%2Fembed.js', '/embed/decoders/meshopt.js']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code, url).toBe('not_found');
    }
  });
});
