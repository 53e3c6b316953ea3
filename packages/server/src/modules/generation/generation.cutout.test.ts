import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GenerateHints, Generator, GeneratorView } from '@plinth/media';
import { boxDocument, glbBytes } from '@plinth/media/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { attachEmptyPhoto, attachRealImages } from '../../test/images.js';
import { quoteAndCommit, seedProduct, TEST_ALLOW } from '../../test/products.js';
import { registerIngestJobs } from '../ingest/ingest.jobs.js';
import { registerProductJobs } from '../products/products.jobs.js';
import { cutoutOf } from '../products/products.json.js';
import { loadProduct } from '../products/products.repo.js';
import { registerGenerationJobs } from './generation.jobs.js';

/**
 * A photo whose cut-out found nothing (`cutout.status: none`) would carve its surroundings into the
 * model: the generation job never hands it to the generator, not even after a reviewer accepted it
 * (acceptance lets an export use the photo as it is; it does not make a mask out of nothing).
 */
let t: TestApp;
let web: FixtureServer;
let work: string;
const received: GeneratorView[][] = [];
const hinted: GenerateHints[] = [];

/** Records what it was given; its model is a plain box (the product's pixels do not matter here). */
const recording: Generator = {
  name: 'recording',
  async generate(views, hints) {
    received.push(views);
    hinted.push(hints);
    return { glb: await glbBytes(boxDocument({ meshSize: [0.2, 0.2, 0.2] }).doc), dimensions: { width: 0.2, height: 0.2, depth: 0.2 }, triangles: 12, method: 'visual_hull' };
  },
};

/**
 * A walk-around clip: an L-shaped product on a plain backdrop, filmed while it turns and the camera
 * drifts, so every frame has a product to cut out and a view of its own.
 */
function walkaroundClip(): Buffer {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="360"><rect width="100%" height="100%" fill="rgb(240,238,232)"/><rect x="150" y="90" width="70" height="180" fill="rgb(40,70,160)"/><rect x="150" y="210" width="170" height="60" fill="rgb(170,60,40)"/><circle cx="290" cy="120" r="26" fill="rgb(30,130,70)"/></svg>`;
  writeFileSync(join(work, 'product.svg'), svg);
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', join(work, 'product.svg'), join(work, 'product.png')]);
  const clip = join(work, 'walk.mp4');
  execFileSync('ffmpeg', [
    '-v', 'error', '-y', '-loop', '1', '-framerate', '12', '-t', '10', '-i', join(work, 'product.png'),
    '-vf', "rotate=a=t*0.25:c=0xf0eee8,crop=400:300:x='40+20*sin(t)':y='30+10*cos(t)'",
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', clip,
  ]);
  return readFileSync(clip);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'plinth-gen-input-'));
  web = await startFixtureServer();
  web.set('/walk.mp4', walkaroundClip(), 'video/mp4');
  t = await createTestApp({ ...TEST_ALLOW, PLINTH_SEGMENTER: 'classical' });
  registerIngestJobs(t.deps);
  registerProductJobs(t.deps);
  registerGenerationJobs(t.deps, recording);
  await t.deps.jobs.start();
});

afterAll(async () => {
  await t?.close();
  await web?.close();
  rmSync(work, { recursive: true, force: true });
});

const settledModel = (id: string) =>
  waitFor(async () => {
    const p = (await t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key) })).json();
    return p.model_status === 'ready' || p.model_status === 'failed' ? p : undefined;
  }, 120_000, 'model');

describe('generation input', () => {
  it('leaves out photos whose cut-out is none, accepted or not', { timeout: 120_000 }, async () => {
    const id = await seedProduct(t, t.org.org_id, { modelStatus: 'none' });
    const good = await attachRealImages(t, id, 2);
    const empty = [await attachEmptyPhoto(t, id), await attachEmptyPhoto(t, id)];
    const review = await t.app.inject({
      method: 'POST',
      url: `/v1/products/${id}/review`,
      headers: bearer(t.org.secret_key),
      payload: { images: [{ image_id: empty[1], decision: 'accepted' }] },
    });
    expect(review.statusCode).toBe(200);
    const listed = (await t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key) })).json();
    expect(listed.images.map((i: { cutout: { status: string } }) => i.cutout.status)).toEqual(['ok', 'ok', 'none', 'none']);

    const quote = await t.app.inject({ method: 'POST', url: `/v1/products/${id}/order`, headers: bearer(t.org.secret_key), payload: { capture: { kind: 'turntable' } } });
    expect(quote.json().operation).toBe('order_model');
    const commit = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { resume_token: quote.json().resume_token } });
    expect(commit.statusCode).toBe(202);
    const done = await settledModel(id);
    expect(done.model_status, JSON.stringify(done.error)).toBe('ready');

    // Exactly the two photos with a cut-out, with their own pixels and masks.
    expect(received).toHaveLength(1);
    expect(hinted[0]).toMatchObject({ capture: 'turntable' });
    const product = (await loadProduct(t.deps.database.db, id))!;
    const stored = (imageId: string) => product.images.find((i) => i.id === imageId)!;
    const expected = await Promise.all(good.map(async (g) => [await t.deps.storage.getBuffer(stored(g).storageKey!), await t.deps.storage.getBuffer(stored(g).maskKey!)]));
    expect(received[0].map((v) => [v.image, v.mask])).toEqual(expected);
  });

  it('gives a walk-around video 24–60 frames, in the order filmed, matched sequentially', { timeout: 180_000 }, async () => {
    const created = await quoteAndCommit(t, t.org.secret_key, { video_url: web.url('/walk.mp4'), capture: { kind: 'walkaround' } });
    // The same clip said to be a turntable spin keeps at most 24 distinct views.
    const spun = await quoteAndCommit(t, t.org.secret_key, { video_url: web.url('/walk.mp4'), capture: { kind: 'turntable' }, generate_model: false });
    const done = await settledModel(created.id);
    expect(done.model_status, JSON.stringify(done.error)).toBe('ready');
    const frames = done.images.filter((i: { origin: string }) => i.origin === 'video_frame');
    // 10 s of steady motion: 3 frames a second, more than a turntable's 24.
    expect(frames.length).toBeGreaterThan(24);
    expect(frames.length).toBeLessThanOrEqual(60);

    const hints = hinted.at(-1)!;
    expect(hints).toMatchObject({ capture: 'walkaround', sequence: true });
    expect(hints.colmapPath).toBeTruthy();
    // The generator sees the frames with a cut-out, in position (time) order: what sequential matching pairs up.
    const product = (await loadProduct(t.deps.database.db, created.id))!;
    const usable = product.images.filter((i) => cutoutOf(i)?.status !== 'none').sort((a, b) => a.position - b.position);
    expect(usable.length).toBeGreaterThanOrEqual(24);
    const expected = await Promise.all(usable.map((i) => t.deps.storage.getBuffer(i.storageKey!)));
    expect(received.at(-1)!.map((v) => v.image)).toEqual(expected);

    const turntable = await waitFor(async () => {
      const p = (await t.app.inject({ method: 'GET', url: `/v1/products/${spun.id}`, headers: bearer(t.org.secret_key) })).json();
      return p.images_status === 'ready' || p.images_status === 'failed' ? p : undefined;
    }, 120_000, 'turntable frames');
    // (Fewer than 12 here: on a turntable, views this alike count as repeats.)
    expect(turntable.images.length).toBeGreaterThan(0);
    expect(turntable.images.length).toBeLessThanOrEqual(24);
    expect(turntable.images.length).toBeLessThan(frames.length);
  });
});
