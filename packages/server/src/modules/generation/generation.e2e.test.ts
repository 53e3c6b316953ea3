import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeIO, getBounds } from '@gltf-transform/core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { productPhoto } from '../../test/images.js';
import { quoteAndCommit, TEST_ALLOW } from '../../test/products.js';
import { registerJobHandlers } from '../../worker.js';
import { validateGlb } from '@plinth/media';
import { boxDocument, glbBytes } from '@plinth/media/test-support';

/**
 * One turn of a painted ball on a turntable, 5 s at 10 frames a second: every frame shows the same round
 * outline, so the turntable's equal steps carve a model that agrees with every kept frame, and the paint
 * (bands of random colour and width, sliding 20 px a frame) makes every frame a distinct view.
 */
const SPIN_FRAMES = 50;
const SPIN_BANDS = (() => {
  let seed = 11;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const bands: { x: number; w: number; fill: string }[] = [];
  for (let x = 0; x < SPIN_FRAMES * 20 + 160; ) {
    const w = 10 + Math.round(rnd() * 30);
    bands.push({ x, w, fill: `rgb(${Math.round(rnd() * 220)},${Math.round(rnd() * 220)},${Math.round(rnd() * 220)})` });
    x += w;
  }
  return bands;
})();
function spinFrame(i: number): Promise<Buffer> {
  const paint = SPIN_BANDS.map((b) => `<rect x="${b.x - i * 20 + 80}" y="0" width="${b.w}" height="240" fill="${b.fill}" clip-path="url(#ball)"/>`).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><rect width="100%" height="100%" fill="rgb(246,245,243)"/>
<clipPath id="ball"><circle cx="160" cy="120" r="72"/></clipPath>${paint}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

let t: TestApp;
let web: FixtureServer;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'plinth-gen-'));
  web = await startFixtureServer();
  for (let i = 0; i < 8; i++) web.set(`/view-${i}.jpg`, await productPhoto(640 + i * 20, 480, { r: 40 + i * 30, g: 120, b: 180 }), 'image/jpeg');
  const video = join(work, 'spin.mp4');
  for (let i = 0; i < SPIN_FRAMES; i++) writeFileSync(join(work, `spin-${String(i).padStart(3, '0')}.png`), await spinFrame(i));
  execFileSync('ffmpeg', ['-v', 'error', '-framerate', '10', '-i', join(work, 'spin-%03d.png'), '-pix_fmt', 'yuv420p', '-y', video]);
  web.set('/spin.mp4', readFileSync(video), 'video/mp4');
  web.set('/box.glb', await glbBytes(boxDocument({ meshSize: [0.4, 0.3, 0.2] }).doc), 'model/gltf-binary');
  t = await createTestApp({ ...TEST_ALLOW, PLINTH_RENDER_VIEWS: '4', PLINTH_RENDER_SIZE: '256', PLINTH_GENERATOR_TRIANGLES: '5000' });
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
});

afterAll(async () => {
  await t?.close();
  await web?.close();
  rmSync(work, { recursive: true, force: true });
});

const get = (id: string) => t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key) }).then((r) => r.json());
const settledModel = (id: string) =>
  waitFor(async () => {
    const p = await get(id);
    return p.model_status === 'ready' || p.model_status === 'failed' ? p : undefined;
  }, 180_000, 'model');
const file = async (url: string) => (await t.app.inject({ method: 'GET', url: new URL(url).pathname })).rawPayload;

async function heightOf(glb: Buffer): Promise<number> {
  const doc = await new NodeIO().readBinary(new Uint8Array(glb));
  const { min, max } = getBounds(doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0]);
  return max[1] - min[1];
}

describe('generation end to end', () => {
  it('image URLs become a ready generated model that passes the validator, with USDZ', async () => {
    const created = await quoteAndCommit(t, t.org.secret_key, { image_urls: [0, 1, 2, 3, 4, 5, 6, 7].map((i) => web.url(`/view-${i}.jpg`)), capture: { kind: 'turntable' } });
    const p = await settledModel(created.id);
    expect(p.model_status, JSON.stringify(p.error)).toBe('ready');
    expect(p.model.origin).toBe('generated');
    expect(p.model.triangles).toBeLessThanOrEqual(5000);
    expect((await validateGlb(await file(p.model_url))).errors).toBe(0);
    expect((await file(p.model.usdz_url)).subarray(0, 2).toString('latin1')).toBe('PK');
    const events = await t.deps.database.db.selectFrom('events').select('type').where('data', 'like', `%${created.id}%`).orderBy('seq').execute();
    expect(events.map((e) => e.type)).toEqual(['product.created', 'product.images.ready', 'product.model.ready']);
  });

  it('a generated video becomes a ready model', async () => {
    const created = await quoteAndCommit(t, t.org.secret_key, { video_url: web.url('/spin.mp4'), capture: { kind: 'turntable' } });
    const p = await settledModel(created.id);
    expect(p.model_status, JSON.stringify(p.error)).toBe('ready');
    expect(p.images.length).toBeGreaterThanOrEqual(12);
    // Carved from the kept frames and checked against them.
    expect(p.model.quality.method).toBe('turntable_hull');
    expect(p.model.quality.silhouette_iou.median).toBeGreaterThanOrEqual(0.85);
  });

  it('order renders for an imported model: commit, then transparent renders become images and the thumbnail', async () => {
    const imported = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { model_url: web.url('/box.glb') } });
    const p = await settledModel(imported.json().id);
    expect(p.model_status).toBe('ready');
    // An import renders its own poster, free, which stays the thumbnail when renders are ordered later.
    expect(p.thumbnail_url).toMatch(/\.poster\.webp$/);
    const quote = await t.app.inject({ method: 'POST', url: `/v1/products/${p.id}/order`, headers: bearer(t.org.secret_key) });
    expect(quote.json().operation).toBe('order_renders');
    const commit = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { resume_token: quote.json().resume_token } });
    expect(commit.statusCode).toBe(202);
    const done = await waitFor(async () => {
      const x = await get(p.id);
      return x.images_status !== 'ordered' ? x : undefined;
    }, 180_000, 'renders');
    expect(done.images_status, JSON.stringify(done.error)).toBe('ready');
    expect(done.images).toHaveLength(4);
    for (const image of done.images) {
      expect(image.origin).toBe('rendered');
      const { data, info } = await sharp(await file(image.url)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      expect(info.channels).toBe(4);
      expect(data[3]).toBe(0); // top-left corner is transparent
    }
    expect(done.thumbnail_url).toBeTruthy();
  });

  it('rescale to a height of 0.5 m gives a model measuring 0.5 m ± 1%', async () => {
    const imported = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { model_url: web.url('/box.glb') } });
    const p = await settledModel(imported.json().id);
    const oldUrl = p.model_url;
    const res = await t.app.inject({ method: 'POST', url: `/v1/products/${p.id}/model/rescale`, headers: bearer(t.org.secret_key), payload: { dimensions: { height: 0.5 } } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().model.dimensions.height).toBeCloseTo(0.5, 2);
    expect(res.json().model_url).not.toBe(oldUrl);
    const measured = await heightOf(await file(res.json().model_url));
    expect(Math.abs(measured - 0.5) / 0.5).toBeLessThan(0.01);
    expect((await t.app.inject({ method: 'GET', url: new URL(oldUrl).pathname })).statusCode).toBe(404);
    const bad = await t.app.inject({ method: 'POST', url: `/v1/products/${p.id}/model/rescale`, headers: bearer(t.org.secret_key), payload: { scale: 2, dimensions: { height: 1 } } });
    expect(bad.statusCode).toBe(422);
  });
});
