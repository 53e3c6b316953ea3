import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { attachEmptyPhoto, attachRealImages } from '../../test/images.js';
import { seedProduct } from '../../test/products.js';

let t: TestApp;
let work: string;
beforeAll(async () => {
  t = await createTestApp({ PLINTH_EXPORT_SYNC_LIMIT: '24', PLINTH_SEGMENTER: 'classical' });
  work = mkdtempSync(join(tmpdir(), 'plinth-cutout-'));
});
afterAll(async () => {
  await t?.close();
  rmSync(work, { recursive: true, force: true });
});

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: bearer(t.org.secret_key) });

function manifestOf(zip: Buffer) {
  const file = join(work, `${Math.random().toString(36).slice(2)}.zip`);
  writeFileSync(file, zip);
  return JSON.parse(execFileSync('unzip', ['-p', file, 'manifest.json'], { encoding: 'utf8' }));
}

describe('cut-out status', () => {
  it('is on every image of the API, and a found-nothing photo is none', async () => {
    const id = await seedProduct(t, t.org.org_id);
    const [good] = await attachRealImages(t, id, 1);
    const empty = await attachEmptyPhoto(t, id);
    const res = await get(`/v1/products/${id}`);
    expect(res.statusCode).toBe(200);
    const images = res.json().images as { image_id: string; cutout: Record<string, unknown> }[];
    const byId = new Map(images.map((i) => [i.image_id, i.cutout]));
    expect(byId.get(good)).toMatchObject({ status: 'ok', method: 'classical' });
    expect(byId.get(good)!.coverage).toBeGreaterThan(0.1);
    expect(byId.get(empty)).toMatchObject({ status: 'none', method: 'classical' });
  });

  it('exports skip a none image with reason no_cutout until a reviewer accepts it', async () => {
    const id = await seedProduct(t, t.org.org_id);
    const [good] = await attachRealImages(t, id, 1);
    const empty = await attachEmptyPhoto(t, id);
    const first = await get(`/v1/products/export?ids=${id}`);
    expect(first.statusCode, first.body.slice(0, 300)).toBe(200);
    const manifest = manifestOf(first.rawPayload);
    expect(manifest.entries.map((e: { image_id: string }) => e.image_id)).toEqual([good]);
    expect(manifest.skipped).toEqual([{ product_id: id, image_id: empty, reason: 'no_cutout', image_review_status: 'pending' }]);

    const review = await t.app.inject({
      method: 'POST',
      url: `/v1/products/${id}/review`,
      headers: bearer(t.org.secret_key),
      payload: { images: [{ image_id: empty, decision: 'accepted' }] },
    });
    expect(review.statusCode).toBe(200);
    const accepted = manifestOf((await get(`/v1/products/export?ids=${id}`)).rawPayload);
    expect(accepted.entries.map((e: { image_id: string }) => e.image_id).sort()).toEqual([good, empty].sort());
    expect(accepted.skipped).toEqual([]);
  });

  it('GET /v1/health says which segmenter is active', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/health' });
    expect(res.json().segmenter).toEqual({ name: 'classical', model: null });
  });
});
