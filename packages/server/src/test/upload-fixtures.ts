import { randomBytes } from 'node:crypto';
import { Document, NodeIO } from '@gltf-transform/core';
import sharp from 'sharp';

// Files for the upload tests: real images and a real GLB, and the junk an attacker sends.

export const png = (w = 64, h = 48) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 80, b: 40 } } }).png().toBuffer();

export const jpeg = (w = 64, h = 48) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r: 20, g: 120, b: 200 } } }).jpeg().toBuffer();

/** A 10 cm box with normals: small, valid, and importable. */
export async function boxGlb(size = 0.1): Promise<Buffer> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const h = size / 2;
  const p: number[] = [];
  const n: number[] = [];
  const idx: number[] = [];
  const faces: [number[], number[], number[]][] = [
    [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    [[-1, 0, 0], [0, 0, 1], [0, 1, 0]],
    [[0, 1, 0], [0, 0, 1], [1, 0, 0]],
    [[0, -1, 0], [1, 0, 0], [0, 0, 1]],
    [[0, 0, 1], [1, 0, 0], [0, 1, 0]],
    [[0, 0, -1], [0, 1, 0], [1, 0, 0]],
  ];
  for (const [normal, u, v] of faces) {
    const base = p.length / 3;
    for (const [su, sv] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
      for (let k = 0; k < 3; k++) p.push((normal[k] + su * u[k] + sv * v[k]) * h);
      n.push(...normal);
    }
    idx.push(base, base + 1, base + 2, base, base + 2, base + 3);
  }
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(new Float32Array(p)).setBuffer(buffer))
    .setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(new Float32Array(n)).setBuffer(buffer))
    .setIndices(doc.createAccessor().setType('SCALAR').setArray(new Uint16Array(idx)).setBuffer(buffer))
    .setMaterial(doc.createMaterial('clay').setBaseColorFactor([0.8, 0.5, 0.3, 1]));
  const mesh = doc.createMesh('box').addPrimitive(prim);
  doc.createScene('scene').addChild(doc.createNode('box').setMesh(mesh));
  return Buffer.from(await new NodeIO().writeBinary(doc));
}

/** What the audit sent: random bytes behind a PNG signature. */
export function fakePng(bytes: number): Buffer {
  const buf = randomBytes(bytes);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(buf, 0);
  return buf;
}

/** A GLB of one JSON chunk holding `text` (padded to 4 bytes), with a correct header. */
function jsonOnlyGlb(text: string): Buffer {
  const json = Buffer.from(text + ' '.repeat((4 - (Buffer.byteLength(text) % 4)) % 4));
  const out = Buffer.alloc(20 + json.length);
  out.writeUInt32LE(0x46546c67, 0);
  out.writeUInt32LE(2, 4);
  out.writeUInt32LE(out.length, 8);
  out.writeUInt32LE(json.length, 12);
  out.writeUInt32LE(0x4e4f534a, 16);
  json.copy(out, 20);
  return out;
}

/** A GLB header whose JSON chunk is not JSON. */
export const brokenGlb = () => jsonOnlyGlb('{"asset": not json');

/** A well-formed GLB whose buffer lives in another file: refused, an upload must be self-contained. */
export const externalBufferGlb = () =>
  jsonOnlyGlb(JSON.stringify({ asset: { version: '2.0' }, buffers: [{ uri: 'http://169.254.169.254/latest/meta-data', byteLength: 4 }] }));

/** A multipart body with one file field. */
export function multipartBody(data: Buffer, filename: string, type: string) {
  const boundary = `----plinth${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload: body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
