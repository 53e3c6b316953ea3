import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';
import { boxGlb, jpeg, multipartBody, png } from '../../test/upload-fixtures.js';
import { sweepUploads } from './uploads.cleanup.js';

let t: TestApp;
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

beforeAll(async () => {
  t = await createTestApp({}, { clock });
});
afterAll(async () => t?.close());

const upload = (data: Buffer, type: string, key = t.org.secret_key) =>
  t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(key), 'content-type': type }, payload: data });
const pathOf = (url: string) => new URL(url).pathname;

describe('uploads', () => {
  it('a raw PNG is decoded, stored privately and readable by its organization', async () => {
    const data = await png(120, 90);
    const res = await upload(data, 'image/png');
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ object: 'upload', kind: 'image', content_type: 'image/png', bytes: data.length });
    expect(body.sha256).toBe(createHash('sha256').update(data).digest('hex'));
    expect(body.path).toMatch(/^uploads\/[0-9a-z]{32}\.png$/);
    expect(pathOf(body.url)).toBe(`/v1/files/orgs/${t.org.org_id}/${body.path}`);
    const read = await t.app.inject({ method: 'GET', url: pathOf(body.url), headers: bearer(t.org.secret_key) });
    expect(read.statusCode).toBe(200);
    expect(read.headers['cache-control']).toBe('private, no-store');
    expect(read.rawPayload.equals(data)).toBe(true);
  });

  it('a multipart JPEG from a signed-in member is accepted; the type comes from decoding, not the header', async () => {
    const member = await t.member(t.org.org_id, 'member');
    const cookie = await sessionCookie(t.app, member.email, member.password);
    const form = multipartBody(await jpeg(), 'photo.png', 'image/png');
    const res = await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...form.headers, cookie, origin: t.config.publicUrl }, payload: form.payload });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ kind: 'image', content_type: 'image/jpeg' });
    expect(res.json().path).toMatch(/\.jpg$/);
    const meta = await sharp((await t.app.inject({ method: 'GET', url: pathOf(res.json().url), headers: { cookie } })).rawPayload).metadata();
    expect(meta.format).toBe('jpeg');
  });

  it('WebP, GIF and AVIF are decoded and typed from their bytes', async () => {
    const base = sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 10, g: 200, b: 90 } } });
    const cases = [
      { data: await base.clone().webp().toBuffer(), type: 'image/webp', ext: 'webp' },
      { data: await base.clone().gif().toBuffer(), type: 'image/gif', ext: 'gif' },
      { data: await base.clone().avif().toBuffer(), type: 'image/avif', ext: 'avif' },
    ];
    for (const c of cases) {
      const res = await upload(c.data, 'application/octet-stream');
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ kind: 'image', content_type: c.type });
      expect(res.json().path.endsWith(`.${c.ext}`)).toBe(true);
    }
  });

  it('a GLB model is accepted as model/gltf-binary and as application/octet-stream', async () => {
    const glb = await boxGlb();
    for (const type of ['model/gltf-binary', 'application/octet-stream']) {
      const res = await upload(glb, type);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ kind: 'model', content_type: 'model/gltf-binary', bytes: glb.length });
      expect(res.json().path).toMatch(/^uploads\/[0-9a-z]{32}\.glb$/);
    }
  });

  it('image_paths quote with an upload; after the retention period unused uploads are swept and used ones kept', async () => {
    const used = (await upload(await png(80, 80), 'image/png')).json();
    const unused = (await upload(await png(81, 80), 'image/png')).json();
    const quote = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { image_paths: [used.path], generate_model: false } });
    expect(quote.statusCode, quote.body).toBe(200);
    const commit = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { resume_token: quote.json().resume_token } });
    expect(commit.statusCode, commit.body).toBe(202);

    expect(await sweepUploads(t.deps)).toBe(0); // nothing is old yet
    offsetMs = (t.config.uploadRetentionSeconds + 60) * 1000;
    try {
      expect(await sweepUploads(t.deps)).toBeGreaterThanOrEqual(1);
    } finally {
      offsetMs = 0;
    }
    const rows = await t.deps.database.db.selectFrom('uploads').select(['path', 'used_at']).where('org_id', '=', t.org.org_id).execute();
    const paths = rows.map((r) => r.path);
    expect(paths).toContain(used.path);
    expect(paths).not.toContain(unused.path);
    expect(rows.find((r) => r.path === used.path)!.used_at).not.toBeNull();
    const keys = await t.deps.storage.list(`orgs/${t.org.org_id}/uploads/`);
    expect(keys.some((k) => k.endsWith(used.path.slice('uploads/'.length)))).toBe(true);
    expect(keys.some((k) => k.endsWith(unused.path.slice('uploads/'.length)))).toBe(false);
    const gone = await t.app.inject({ method: 'GET', url: pathOf(unused.url), headers: bearer(t.org.secret_key) });
    expect(gone.statusCode).toBe(404);
  });
});

describe('uploads of a deleted product', () => {
  it('stop being kept: after the retention period the sweep deletes them', async () => {
    const glb = (await upload(await (await import('../../test/upload-fixtures.js')).boxGlb(), 'model/gltf-binary')).json();
    const created = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { model_path: glb.path } });
    expect(created.statusCode, created.body).toBe(202);
    offsetMs = (t.config.uploadRetentionSeconds + 60) * 1000;
    try {
      await sweepUploads(t.deps);
      expect(await t.deps.database.db.selectFrom('uploads').select('id').where('path', '=', glb.path).execute()).toHaveLength(1);
      const del = await t.app.inject({ method: 'DELETE', url: `/v1/products/${created.json().id}`, headers: bearer(t.org.secret_key) });
      expect(del.statusCode).toBe(200);
      expect(await sweepUploads(t.deps)).toBeGreaterThanOrEqual(1);
      expect(await t.deps.database.db.selectFrom('uploads').select('id').where('path', '=', glb.path).execute()).toHaveLength(0);
    } finally {
      offsetMs = 0;
    }
  });
});

describe('temp files', () => {
  it('a temp file left by a crash is removed by the sweep; a fresh one is left alone', async () => {
    const { mkdirSync, writeFileSync, utimesSync, existsSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = join(t.config.dataDir, 'tmp', 'uploads');
    mkdirSync(dir, { recursive: true });
    const [old, fresh] = [join(dir, 'crashed.part'), join(dir, 'arriving.part')];
    writeFileSync(old, 'x');
    writeFileSync(fresh, 'y');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    await sweepUploads(t.deps);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });
});
