import type { Generator, GeneratorView } from '@plinth/media';
import { boxDocument, glbBytes } from '@plinth/media/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { waitFor } from '../../test/fixture-server.js';
import { attachEmptyPhoto, attachRealImages } from '../../test/images.js';
import { seedProduct } from '../../test/products.js';
import { loadProduct } from '../products/products.repo.js';
import { registerGenerationJobs } from './generation.jobs.js';

/**
 * A photo whose cut-out found nothing (`cutout.status: none`) would carve its surroundings into the
 * model: the generation job never hands it to the generator, not even after a reviewer accepted it
 * (acceptance lets an export use the photo as it is; it does not make a mask out of nothing).
 */
let t: TestApp;
const received: GeneratorView[][] = [];

/** Records what it was given; its model is a plain box (the product's pixels do not matter here). */
const recording: Generator = {
  name: 'recording',
  async generate(views) {
    received.push(views);
    return { glb: await glbBytes(boxDocument({ meshSize: [0.2, 0.2, 0.2] }).doc), dimensions: { width: 0.2, height: 0.2, depth: 0.2 }, triangles: 12, method: 'visual_hull' };
  },
};

beforeAll(async () => {
  t = await createTestApp({ PLINTH_SEGMENTER: 'classical' });
  registerGenerationJobs(t.deps, recording);
  await t.deps.jobs.start();
});

afterAll(async () => {
  await t?.close();
});

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
    const done = await waitFor(async () => {
      const p = (await t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key) })).json();
      return p.model_status === 'ready' || p.model_status === 'failed' ? p : undefined;
    }, 90_000, 'model');
    expect(done.model_status, JSON.stringify(done.error)).toBe('ready');

    // Exactly the two photos with a cut-out, with their own pixels and masks.
    expect(received).toHaveLength(1);
    const product = (await loadProduct(t.deps.database.db, id))!;
    const stored = (imageId: string) => product.images.find((i) => i.id === imageId)!;
    const expected = await Promise.all(good.map(async (g) => [await t.deps.storage.getBuffer(stored(g).storageKey!), await t.deps.storage.getBuffer(stored(g).maskKey!)]));
    expect(received[0].map((v) => [v.image, v.mask])).toEqual(expected);
  });
});
