import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { productPhoto } from '../../test/images.js';
import { quoteAndCommit, TEST_ALLOW } from '../../test/products.js';
import { registerJobHandlers } from '../../worker.js';
import { validateGlb } from '@plinth/media';
import { boxDocument, glbBytes, gltfFiles } from '@plinth/media/test-support';

let t: TestApp;
let web: FixtureServer;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'plinth-ingest-'));
  web = await startFixtureServer();
  web.set('/a.jpg', await productPhoto(800, 600), 'image/jpeg');
  web.set('/b.png', await sharp(await productPhoto(600, 800, { r: 200, g: 40, b: 40 })).png().toBuffer(), 'image/png');
  web.set('/huge.png', await sharp({ create: { width: 14000, height: 14000, channels: 3, background: '#ffffff' } }).png({ compressionLevel: 9 }).toBuffer(), 'image/png');
  const jpeg = await productPhoto(800, 600, { r: 10, g: 160, b: 60 });
  web.set('/truncated.jpg', jpeg.subarray(0, Math.floor(jpeg.length / 2)), 'image/jpeg');
  web.set('/logo.svg', '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>', 'image/svg+xml');
  web.set(
    '/product.html',
    `<html><head><title>Shop</title><script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Blue Bowl', image: ['/a.jpg', 'b.png'] })}</script></head><body></body></html>`,
    'text/html',
  );
  web.set('/empty.html', '<html><head><title>Nothing</title></head><body><p>No pictures here.</p><img src="/px.gif" width="1" height="1"></body></html>', 'text/html');
  const video = join(work, 'turntable.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=10:duration=6', '-pix_fmt', 'yuv420p', '-y', video]);
  web.set('/video.mp4', readFileSync(video), 'video/mp4');
  const box = boxDocument({ meshSize: [0.4, 0.3, 0.2] });
  web.set('/box.glb', await glbBytes(box.doc), 'model/gltf-binary');
  const badLength = Buffer.from(await glbBytes(boxDocument({ meshSize: [1, 1, 1] }).doc));
  badLength.writeUInt32LE(badLength.length + 1000, 8);
  web.set('/bad-length.glb', badLength, 'model/gltf-binary');
  for (const [name, uri] of [
    ['metadata', 'http://169.254.169.254/latest/meta-data'],
    ['local-file', 'file:///etc/passwd'],
  ]) {
    const { json } = await gltfFiles(boxDocument({ meshSize: [1, 1, 1] }).doc);
    const gltf = JSON.parse(json.toString('utf8'));
    gltf.buffers[0].uri = uri;
    web.set(`/${name}.gltf`, JSON.stringify(gltf), 'model/gltf+json');
  }
  t = await createTestApp(TEST_ALLOW);
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
});

afterAll(async () => {
  await t?.close();
  await web?.close();
  rmSync(work, { recursive: true, force: true });
});

const get = (id: string) => t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key) }).then((r) => r.json());

async function settled(id: string, done: (p: any) => boolean, what: string) {
  return waitFor(async () => {
    const p = await get(id);
    return done(p) ? p : undefined;
  }, 90_000, what);
}

const imagesSettled = (p: any) => p.images_status !== 'ingesting';
const filesOf = (id: string, orgId = t.org.org_id) => t.deps.storage.list(`orgs/${orgId}/products/${id}/`);

describe('ingestion from real sources', () => {
  it('image URLs become pending images with thumbnails and an analysis', async () => {
    const created = await quoteAndCommit(t, t.org.secret_key, { image_urls: [web.url('/a.jpg'), web.url('/b.png')], generate_model: false });
    const p = await settled(created.id, imagesSettled, 'images');
    expect(p.images_status).toBe('ready');
    expect(p.analysis_status).toBe('done');
    expect(p.images).toHaveLength(2);
    for (const image of p.images) {
      expect(image.image_review_status).toBe('pending');
      expect(image.origin).toBe('fetched');
      expect(image.width).toBeGreaterThan(0);
      const thumb = await t.app.inject({ method: 'GET', url: new URL(image.thumbnail_url).pathname });
      expect(thumb.statusCode).toBe(200);
      expect((await sharp(thumb.rawPayload).metadata()).format).toBe('webp');
    }
    expect(p.thumbnail_url).toBeTruthy();
    const events = await t.deps.database.db.selectFrom('events').select('type').where('data', 'like', `%${created.id}%`).execute();
    expect(events.map((e) => e.type)).toContain('product.images.ready');
  });

  it('a product page with JSON-LD becomes a product with its title and images', async () => {
    const created = await quoteAndCommit(t, t.org.secret_key, { source_url: web.url('/product.html'), generate_model: false });
    const p = await settled(created.id, imagesSettled, 'page');
    expect(p.title).toBe('Blue Bowl');
    expect(p.images.map((i: any) => i.error)).toEqual([null, null]);
    expect(p.images).toHaveLength(2);
  });

  it('a generated video filmed on a turntable yields 12–24 frames (a walk-around keeps 24–60: generation.cutout.test.ts)', { timeout: 120_000 }, async () => {
    const created = await quoteAndCommit(t, t.org.secret_key, { video_url: web.url('/video.mp4'), generate_model: false, capture: { kind: 'turntable' } });
    const p = await settled(created.id, imagesSettled, 'video');
    expect(p.images_status).toBe('ready');
    expect(p.images.length).toBeGreaterThanOrEqual(12);
    expect(p.images.length).toBeLessThanOrEqual(24);
    expect(new Set(p.images.map((i: any) => i.origin))).toEqual(new Set(['video_frame']));
  });

  it('a generated GLB becomes a ready model with dimensions; its output passes the validator', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { model_url: web.url('/box.glb') } });
    expect(res.statusCode).toBe(202);
    const p = await settled(res.json().id, (x) => x.model_status !== 'queued', 'model');
    expect(p.model_status).toBe('ready');
    expect(p.model.dimensions.width).toBeCloseTo(0.4, 3);
    expect(p.model.dimensions.height).toBeCloseTo(0.3, 3);
    expect(p.model.dimensions.depth).toBeCloseTo(0.2, 3);
    const glb = await t.app.inject({ method: 'GET', url: new URL(p.model_url).pathname });
    expect((await validateGlb(glb.rawPayload)).errors).toBe(0);
    const usdz = await t.app.inject({ method: 'GET', url: new URL(p.model.usdz_url).pathname });
    expect(usdz.statusCode).toBe(200);
    expect(usdz.rawPayload.subarray(0, 2).toString('latin1')).toBe('PK');
  });

  it('uploads become images through image_paths, and only the same organization may use them', async () => {
    const up = await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(t.org.secret_key), 'content-type': 'image/jpeg' }, payload: await productPhoto(500, 500) });
    expect(up.statusCode).toBe(201);
    const created = await quoteAndCommit(t, t.org.secret_key, { image_paths: [up.json().path], generate_model: false });
    const p = await settled(created.id, imagesSettled, 'upload');
    expect(p.images[0].origin).toBe('uploaded');
    const other = await t.bootstrap();
    const theirs = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(other.secret_key), payload: { image_paths: [up.json().path] } });
    expect(theirs.statusCode).toBe(422);
    const svg = await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(t.org.secret_key), 'content-type': 'application/octet-stream' }, payload: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') });
    expect(svg.statusCode).toBe(415);
  });
});

describe('bad input: a clear reason, nothing half-written', () => {
  it.each([
    ['/huge.png', 'too_many_pixels'],
    ['/truncated.jpg', 'corrupt_image'],
    ['/logo.svg', 'unsupported_format'],
  ])('%s fails its image with %s and stores no file', async (path, code) => {
    const created = await quoteAndCommit(t, t.org.secret_key, { image_urls: [web.url(path)], generate_model: true });
    const p = await settled(created.id, (x) => x.images_status !== 'ingesting' && x.model_status !== 'queued', 'failure');
    expect(p.images_status).toBe('failed');
    expect(p.images[0].error.code).toBe(code);
    expect(p.images[0].image_review_status).toBe('rejected');
    expect(p.model_status).toBe('failed');
    expect(await filesOf(created.id)).toEqual([]);
  });

  it('a failed generation refunds its credits', async () => {
    const org = await t.bootstrap({ credits: 21 });
    const created = await quoteAndCommit(t, org.secret_key, { image_urls: [web.url('/logo.svg')] });
    await waitFor(async () => {
      const p = (await t.app.inject({ method: 'GET', url: `/v1/products/${created.id}`, headers: bearer(org.secret_key) })).json();
      return p.model_status === 'failed';
    }, 60_000, 'failed model');
    const ledger = await t.deps.database.db.selectFrom('credit_ledger').select(['delta', 'reason']).where('org_id', '=', org.org_id).orderBy('id').execute();
    expect(ledger).toEqual([
      { delta: 21, reason: 'grant' },
      { delta: -21, reason: 'create' },
      { delta: 20, reason: 'refund' },
    ]);
  });

  it('an HTML page with no product images fails with no_product_images', async () => {
    const created = await quoteAndCommit(t, t.org.secret_key, { source_url: web.url('/empty.html'), generate_model: false });
    const p = await settled(created.id, imagesSettled, 'empty page');
    expect(p.images_status).toBe('failed');
    expect(p.error.code).toBe('no_product_images');
  });

  it.each([
    ['/bad-length.glb', 'corrupt_model'],
    ['/metadata.gltf', 'external_fetch_failed'],
    ['/local-file.gltf', 'external_uri_refused'],
  ])('model %s fails with %s', async (path, code) => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { model_url: web.url(path) } });
    const p = await settled(res.json().id, (x) => x.model_status !== 'queued', 'model failure');
    expect(p.model_status).toBe('failed');
    expect(p.error.code).toBe(code);
    expect(await filesOf(p.id)).toEqual([]);
  });
});
