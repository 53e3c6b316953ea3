import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { boxGlb, brokenGlb, externalBufferGlb, fakePng, multipartBody, png } from '../../test/upload-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const upload = (t: TestApp, data: Buffer, type: string) =>
  t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(t.org.secret_key), 'content-type': type }, payload: data });

function expectEnvelope(res: { statusCode: number; json(): any; headers: Record<string, unknown> }, status: number, code: string) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
  expect(res.json().error.code).toBe(code);
  expect(typeof res.json().error.request_id).toBe('string');
  expect(res.headers['x-request-id']).toBe(res.json().error.request_id);
}

async function nothingStored(t: TestApp) {
  expect(await t.deps.storage.list(`orgs/${t.org.org_id}/uploads/`)).toEqual([]);
  expect(await t.deps.database.db.selectFrom('uploads').select('id').where('org_id', '=', t.org.org_id).execute()).toEqual([]);
}

describe('uploads refused', () => {
  it('39 MB of random bytes behind a PNG signature: 422, nothing stored; ten of them do not grow the process by hundreds of MB', async () => {
    const junk = fakePng(39 * 1024 * 1024);
    const first = await upload(t, junk, 'image/png');
    expectEnvelope(first, 422, 'validation_failed');
    expect(first.json().error.details.errors[0].path).toBe('body');
    global.gc?.();
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 10; i++) expectEnvelope(await upload(t, junk, 'image/png'), 422, 'validation_failed');
    global.gc?.();
    const after = process.memoryUsage().rss;
    const mb = (n: number) => Math.round(n / 1024 / 1024);
    console.log(`[uploads] RSS before ten 39 MB bad uploads: ${mb(before)} MB, after: ${mb(after)} MB, growth: ${mb(after - before)} MB`);
    expect(after - before).toBeLessThan(256 * 1024 * 1024);
    await nothingStored(t);
  }, 120_000);

  it('a truncated PNG (valid header, missing pixels) is refused by the decode', async () => {
    const whole = await png(400, 300);
    expectEnvelope(await upload(t, whole.subarray(0, Math.floor(whole.length / 2)), 'image/png'), 422, 'validation_failed');
    await nothingStored(t);
  });

  it('GLB headers over junk are refused: broken JSON chunk, external buffer, wrong declared length', async () => {
    expectEnvelope(await upload(t, brokenGlb(), 'model/gltf-binary'), 422, 'validation_failed');
    const external = await upload(t, externalBufferGlb(), 'model/gltf-binary');
    expectEnvelope(external, 422, 'validation_failed');
    expect(external.json().error.details.errors[0].message).toMatch(/self-contained/);
    const glb = await boxGlb();
    expectEnvelope(await upload(t, glb.subarray(0, glb.length - 8), 'model/gltf-binary'), 422, 'validation_failed');
    await nothingStored(t);
  });

  it('an empty body is 422; a type that is neither image nor model is 415', async () => {
    expectEnvelope(await upload(t, Buffer.alloc(0), 'image/png'), 422, 'validation_failed');
    expectEnvelope(await upload(t, Buffer.from('hello'), 'text/plain'), 415, 'unsupported_media_type');
  });

  it('a multipart form without a file field is 422', async () => {
    const boundary = 'b0undary';
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n--${boundary}--\r\n`;
    const res = await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(t.org.secret_key), 'content-type': `multipart/form-data; boundary=${boundary}` }, payload });
    expectEnvelope(res, 422, 'validation_failed');
  });
});

describe('upload limits', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await createTestApp({ PLINTH_UPLOAD_LIMIT_BYTES: String(64 * 1024), PLINTH_UPLOAD_QUOTA_BYTES: String(100 * 1024) });
  });
  afterAll(async () => small?.close());

  it('a raw body over the per-file limit is 413 payload_too_large, also when sent without a length', async () => {
    const big = fakePng(200 * 1024);
    const res = await upload(small, big, 'image/png');
    expectEnvelope(res, 413, 'payload_too_large');
    expect(res.json().error.details.limit_bytes).toBe(64 * 1024);
    const { Readable } = await import('node:stream');
    const chunked = await small.app.inject({
      method: 'POST',
      url: '/v1/uploads',
      headers: { ...bearer(small.org.secret_key), 'content-type': 'image/png' },
      payload: Readable.from([big.subarray(0, 100_000), big.subarray(100_000)]),
    });
    expectEnvelope(chunked, 413, 'payload_too_large');
    await nothingStored(small);
  });

  it('over real HTTP, a client streaming an oversized body gets its 413 envelope (not a reset), then the connection closes', async () => {
    const address = await small.app.listen({ port: 0, host: '127.0.0.1' });
    const big = fakePng(1024 * 1024);
    const chunks = [big.subarray(0, 300_000), big.subarray(300_000, 700_000), big.subarray(700_000)];
    const body = new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(new Uint8Array(next));
        else controller.close();
      },
    });
    const res = await fetch(`${address}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${small.org.secret_key}`, 'content-type': 'image/png' },
      body,
      duplex: 'half',
    } as RequestInit);
    const text = await res.clone().text();
    expect(res.status, text).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect((await res.json()).error.code).toBe('payload_too_large');
    await nothingStored(small);
  });

  it('a multipart file over the limit is 413', async () => {
    const form = multipartBody(fakePng(100 * 1024), 'big.png', 'image/png');
    expectEnvelope(await small.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(small.org.secret_key), ...form.headers }, payload: form.payload }), 413, 'payload_too_large');
    await nothingStored(small);
  });

  it('uploads beyond the organization quota are 413 with reason quota; another organization is not affected', async () => {
    const image = await png(160, 120); // a few hundred bytes
    const noise = await import('sharp').then(({ default: sharp }) =>
      sharp(Buffer.from(Array.from({ length: 120 * 120 * 3 }, (_, i) => (i * 7919) % 251)), { raw: { width: 120, height: 120, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer(),
    );
    expect(noise.length).toBeGreaterThan(40 * 1024);
    expect(noise.length).toBeLessThan(64 * 1024);
    expect((await upload(small, noise, 'image/png')).statusCode).toBe(201);
    expect((await upload(small, noise, 'image/png')).statusCode).toBe(201);
    const over = await upload(small, noise, 'image/png');
    expectEnvelope(over, 413, 'payload_too_large');
    expect(over.json().error.details).toMatchObject({ reason: 'quota', quota_bytes: 100 * 1024, used_bytes: noise.length * 2 });
    const other = await small.bootstrap();
    const res = await small.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(other.secret_key), 'content-type': 'image/png' }, payload: image });
    expect(res.statusCode).toBe(201);
  });
});

describe('kinds of file never taken', () => {
  it('an SVG, a PDF or a text file is 415 with the accepted list, whatever Content-Type it claims', async () => {
    for (const data of [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), Buffer.from('%PDF-1.7\n...'), Buffer.from('just text')]) {
      const res = await upload(t, data, 'image/png');
      expectEnvelope(res, 415, 'unsupported_media_type');
      expect(res.json().error.details.accepted).toContain('model/gltf-binary');
    }
  });
});
