import { Document, Primitive } from '@gltf-transform/core';
import { getBounds } from '@gltf-transform/functions';
import sharp from 'sharp';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { rejection } from '../util/rejection.test-support.js';
import { parseGlb } from './model-container.js';
import { boxDocument, fakeFetcher, glbBytes, gltfFiles, gradientPng, testIO } from './model-fixtures.test-support.js';
import { processModel, processModelBuffer, rescaleModel, validateGlb, type ProcessedModel } from './model-pipeline.js';
import { listZipEntries } from '../usdz/usdz-zip.js';

const BASE = 'https://cdn.example.com/models/';
const MAIN = `${BASE}box.gltf`;


/** Independent measurement: re-read the output GLB and take its world-space bounds. */
async function measure(glb: Buffer) {
  const doc = await testIO().readBinary(glb);
  const { min, max } = getBounds(doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0]);
  return { doc, size: [max[0] - min[0], max[1] - min[1], max[2] - min[2]] };
}

// The validator must never reach the network on its own; every byte comes through fetchBytes.
const globalFetch = vi.spyOn(globalThis, 'fetch');
afterEach(() => expect(globalFetch).not.toHaveBeenCalled());

describe('processModel: textured box with external buffers', () => {
  let result: ProcessedModel;
  let calls: string[];
  let elapsed = 0;

  beforeAll(async () => {
    // 0.8 × 0.6 × 0.4 mesh under a 0.5 node scale: the dimensions must be world-space.
    const { doc } = boxDocument({ meshSize: [0.8, 0.6, 0.4], nodeScale: [0.5, 0.5, 0.5], nodeTranslation: [1, 2, 3], texture: await gradientPng(4096), splitBuffers: true });
    const { json, files } = await gltfFiles(doc);
    expect(Object.keys(files).sort()).toEqual(['box-indices.bin', 'box.bin', 'textures/albedo.png']);
    const table: Record<string, Uint8Array> = { [MAIN]: json };
    for (const [uri, bytes] of Object.entries(files)) table[BASE + uri] = bytes;
    const fetcher = fakeFetcher(table);
    calls = fetcher.calls;
    const started = performance.now();
    result = await processModel(MAIN, fetcher.fetchBytes);
    elapsed = performance.now() - started;
  }, 60_000);

  it('measures 0.4 × 0.3 × 0.2 m within 0.1%', () => {
    const { width, height, depth } = result.dimensions;
    expect(Math.abs(width / 0.4 - 1)).toBeLessThan(0.001);
    expect(Math.abs(height / 0.3 - 1)).toBeLessThan(0.001);
    expect(Math.abs(depth / 0.2 - 1)).toBeLessThan(0.001);
  });

  it('counts exactly 12 triangles and reports the GLB size', () => {
    expect(result.triangles).toBe(12);
    expect(result.bytes).toBe(result.glb.byteLength);
  });

  it('fetched each external resource exactly once, through fetchBytes, resolved against the model URL', () => {
    expect([...calls].sort()).toEqual([MAIN, `${BASE}box-indices.bin`, `${BASE}box.bin`, `${BASE}textures/albedo.png`].sort());
  });

  it('writes a single-buffer GLB whose texture is at most 2048 px and which the validator accepts', async () => {
    const { json, bin } = parseGlb(result.glb);
    expect(json.buffers).toHaveLength(1);
    expect(json.buffers?.[0].uri).toBeUndefined();
    expect(bin?.byteLength).toBeGreaterThan(0);
    const { doc, size } = await measure(result.glb);
    expect(size[1]).toBeCloseTo(0.3, 5);
    const textures = doc.getRoot().listTextures();
    expect(textures).toHaveLength(1);
    expect(textures[0].getMimeType()).toBe('image/png');
    const meta = await sharp(textures[0].getImage()!).metadata();
    expect(meta.format).toBe('png');
    expect(Math.max(meta.width!, meta.height!)).toBe(2048);
    const report = await validateGlb(result.glb);
    expect(report.errors).toBe(0);
    expect(result.validation).toEqual({ errors: 0, warnings: report.warnings });
    console.info(`[model] processModel 4096² textured box: ${elapsed.toFixed(0)} ms, GLB ${result.bytes} B, USDZ ${result.usdz.byteLength} B, output warnings ${report.warnings}: ${report.messages.map((m) => m.code).join(', ') || 'none'}`);
  });

  it('produces a USDZ with the layer first and the texture inside', () => {
    const entries = listZipEntries(result.usdz);
    expect(entries[0].name).toBe('model.usda');
    expect(entries.map((e) => e.name)).toContain('textures/texture_0.png');
    for (const e of entries) expect(e.dataOffset % 64).toBe(0);
  });
});

describe('processModel: rejections', () => {
  let glb: Buffer;
  beforeAll(async () => {
    glb = await glbBytes(boxDocument({ meshSize: [1, 1, 1] }).doc);
  });

  it('rejects a GLB whose header declares the wrong length', async () => {
    const bad = Buffer.from(glb);
    bad.writeUInt32LE(glb.byteLength + 16, 8);
    const { fetchBytes } = fakeFetcher({ [`${BASE}a.glb`]: bad });
    const err = await rejection(processModel(`${BASE}a.glb`, fetchBytes));
    expect(err.reason).toBe('corrupt_model');
    expect(err.details).toMatchObject({ declaredLength: glb.byteLength + 16, actualLength: glb.byteLength });
  });

  it('rejects a truncated GLB, with or without a consistent header length', async () => {
    const cut = glb.subarray(0, glb.byteLength - 40);
    expect((await rejection(processModelBuffer(cut, null, fakeFetcher({}).fetchBytes))).reason).toBe('corrupt_model');
    const patched = Buffer.from(cut);
    patched.writeUInt32LE(patched.byteLength, 8);
    const err = await rejection(processModelBuffer(patched, null, fakeFetcher({}).fetchBytes));
    expect(err.reason).toBe('corrupt_model');
    expect(err.message).toMatch(/runs past the end/);
  });

  it('rejects garbage bytes', async () => {
    const err = await rejection(processModelBuffer(Buffer.from('PK\x03\x04 definitely not a model'), null, fakeFetcher({}).fetchBytes));
    expect(err.reason).toBe('corrupt_model');
  });

  it('maps a refused external fetch (cloud metadata address) to external_fetch_failed, fetching only through fetchBytes', async () => {
    const metadata = 'http://169.254.169.254/latest/meta-data';
    const gltf = { asset: { version: '2.0' }, buffers: [{ uri: metadata, byteLength: 1024 }] };
    const { fetchBytes, calls } = fakeFetcher({ [MAIN]: Buffer.from(JSON.stringify(gltf)) }, (url) =>
      url.includes('169.254.') ? 'refused: 169.254.169.254 is a link-local address' : null,
    );
    const err = await rejection(processModel(MAIN, fetchBytes));
    expect(err.reason).toBe('external_fetch_failed');
    expect(err.message).toContain('refused: 169.254.169.254 is a link-local address');
    expect(err.details).toMatchObject({ uri: metadata, url: metadata });
    // One call for the model, one for the buffer; the validator never ran, let alone fetched.
    expect(calls).toEqual([MAIN, metadata]);
  });

  it.each([
    ['file:///etc/passwd', /scheme "file:"/],
    ['/etc/passwd', /absolute paths/],
    ['ftp://example.com/box.bin', /scheme "ftp:"/],
    ['//evil.example/box.bin', /absolute paths/],
  ])('refuses %s without calling fetchBytes for it', async (uri, why) => {
    const gltf = { asset: { version: '2.0' }, buffers: [{ uri: 'ok.bin', byteLength: 4 }, { uri, byteLength: 4 }] };
    const { fetchBytes, calls } = fakeFetcher({ [MAIN]: Buffer.from(JSON.stringify(gltf)) });
    const err = await rejection(processModel(MAIN, fetchBytes));
    expect(err.reason).toBe('external_uri_refused');
    expect(err.message).toMatch(why);
    // Refusal happens before any resource fetch, including the harmless one.
    expect(calls).toEqual([MAIN]);
  });

  it('refuses relative URIs when there is no base URL', async () => {
    const gltf = { asset: { version: '2.0' }, buffers: [{ uri: 'box.bin', byteLength: 4 }] };
    const { fetchBytes, calls } = fakeFetcher({});
    const err = await rejection(processModelBuffer(Buffer.from(JSON.stringify(gltf)), null, fetchBytes));
    expect(err.reason).toBe('external_uri_refused');
    expect(calls).toEqual([]);
  });

  it('rejects validator errors as invalid_gltf with the report attached', async () => {
    const gltf = {
      asset: { version: '2.0' },
      scenes: [{ nodes: [0] }],
      nodes: [{ mesh: 0 }],
      meshes: [{ primitives: [{ attributes: { POSITION: 7 } }] }],
    };
    const err = await rejection(processModelBuffer(Buffer.from(JSON.stringify(gltf)), MAIN, fakeFetcher({}).fetchBytes));
    expect(err.reason).toBe('invalid_gltf');
    const report = err.details?.report as { code: string; severity: number; pointer?: string }[];
    expect(report.length).toBeGreaterThan(0);
    expect(report.length).toBeLessThanOrEqual(20);
    expect(report[0]).toMatchObject({ code: 'UNRESOLVED_REFERENCE', severity: 0, pointer: '/meshes/0/primitives/0/attributes/POSITION' });
  });

  it('enforces maxBytes on the model and on its external resources', async () => {
    const { fetchBytes } = fakeFetcher({ [`${BASE}a.glb`]: glb });
    expect((await rejection(processModel(`${BASE}a.glb`, fetchBytes, { maxBytes: 100 }))).reason).toBe('model_too_large');
    const { doc } = boxDocument({ meshSize: [1, 1, 1] });
    const { json, files } = await gltfFiles(doc);
    const table = { [MAIN]: json, [`${BASE}box.bin`]: files['box.bin'] };
    const err = await rejection(processModel(MAIN, fakeFetcher(table).fetchBytes, { maxBytes: json.byteLength + 10 }));
    expect(err.reason).toBe('model_too_large');
  });
});

describe('processModelBuffer: topology and embedded data', () => {
  it('counts strips and fans properly and converts them to triangle lists', async () => {
    const doc = new Document();
    const buffer = doc.createBuffer();
    // A 6-vertex strip (4 triangles) and a 5-vertex fan (3 triangles), non-indexed.
    const strip = new Float32Array([0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 2, 0, 0, 2, 1, 0]);
    const fan = new Float32Array([0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, -1, 1, 1]);
    const mesh = doc
      .createMesh()
      .addPrimitive(doc.createPrimitive().setMode(Primitive.Mode.TRIANGLE_STRIP).setAttribute('POSITION', doc.createAccessor().setBuffer(buffer).setType('VEC3').setArray(strip)))
      .addPrimitive(doc.createPrimitive().setMode(Primitive.Mode.TRIANGLE_FAN).setAttribute('POSITION', doc.createAccessor().setBuffer(buffer).setType('VEC3').setArray(fan)));
    doc.createScene().addChild(doc.createNode().setMesh(mesh));
    const out = await processModelBuffer(await glbBytes(doc), null, fakeFetcher({}).fetchBytes);
    expect(out.triangles).toBe(7);
    const reread = await testIO().readBinary(out.glb);
    const modes = reread.getRoot().listMeshes().flatMap((m) => m.listPrimitives().map((p) => p.getMode()));
    expect(modes.every((m) => m === Primitive.Mode.TRIANGLES)).toBe(true);
    expect(out.dimensions).toEqual({ width: 3, height: 1, depth: 1 });
  });

  it('accepts data: URIs without fetching anything', async () => {
    const { doc } = boxDocument({ meshSize: [0.1, 0.2, 0.3] });
    const { json, files } = await gltfFiles(doc);
    const parsed = JSON.parse(json.toString());
    parsed.buffers[0].uri = `data:application/octet-stream;base64,${Buffer.from(files['box.bin']).toString('base64')}`;
    const { fetchBytes, calls } = fakeFetcher({});
    const out = await processModelBuffer(Buffer.from(JSON.stringify(parsed)), MAIN, fetchBytes);
    expect(calls).toEqual([]);
    expect(out.dimensions.depth).toBeCloseTo(0.3, 6);
  });
});

describe('rescaleModel', () => {
  it('scales uniformly to a target height and regenerates GLB and USDZ', async () => {
    const { doc } = boxDocument({ meshSize: [0.4, 0.3, 0.2], texture: await gradientPng(256) });
    const original = await processModelBuffer(await glbBytes(doc), null, fakeFetcher({}).fetchBytes);
    const scaled = await rescaleModel(original.glb, { height: 0.5 });
    expect(Math.abs(scaled.dimensions.height / 0.5 - 1)).toBeLessThan(0.01);
    expect(scaled.dimensions.width).toBeCloseTo((0.4 * 0.5) / 0.3, 4);
    const { size } = await measure(scaled.glb);
    expect(Math.abs(size[1] / 0.5 - 1)).toBeLessThan(0.01);
    expect(scaled.validation.errors).toBe(0);
    expect(scaled.triangles).toBe(12);
    expect(scaled.usdz.equals(original.usdz)).toBe(false);
    const layer = scaled.usdz.subarray(listZipEntries(scaled.usdz)[0].dataOffset).toString('utf8');
    // The baked extent now spans ±0.25 m vertically.
    expect(layer).toMatch(/float3\[\] extent = \[\(-0\.33333\d*, -0\.25, -0\.16666\d*\), \(0\.33333\d*, 0\.25, 0\.16666\d*\)\]/);

    // A second rescale multiplies into the same wrapper instead of nesting.
    const twice = await rescaleModel(scaled.glb, 2);
    expect(twice.dimensions.height).toBeCloseTo(1, 4);
    const reread = await testIO().readBinary(twice.glb);
    expect(reread.getRoot().listScenes()[0].listChildren().map((n) => n.getName())).toEqual(['PlinthScale']);
  });

  it('rejects non-positive or contradictory targets', async () => {
    const glb = (await processModelBuffer(await glbBytes(boxDocument({ meshSize: [1, 2, 3] }).doc), null, fakeFetcher({}).fetchBytes)).glb;
    expect((await rejection(rescaleModel(glb, 0))).reason).toBe('invalid_scale');
    expect((await rejection(rescaleModel(glb, { height: -1 }))).reason).toBe('invalid_scale');
    expect((await rejection(rescaleModel(glb, { width: 2, height: 2 }))).reason).toBe('invalid_scale');
    expect((await rescaleModel(glb, { width: 2, height: 4 })).dimensions.depth).toBeCloseTo(6, 4);
  });
});
