import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { attachRealImages } from '../../test/images.js';
import { seedProduct } from '../../test/products.js';
import { openZip } from '../../test/zip.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ PLINTH_EXPORT_SYNC_LIMIT: '24' });
});
afterAll(async () => t?.close());

const get = (url: string, key = t.org.secret_key) => t.app.inject({ method: 'GET', url, headers: bearer(key) });

describe('export', { timeout: 120_000 }, () => {
  it('streams a ZIP that opens with unzip, whose manifest sha256s match, with rejected images only as skipped', async () => {
    const id = await seedProduct(t, t.org.org_id, { customId: 'SKU-42' });
    const images = await attachRealImages(t, id, 3);
    const review = await t.app.inject({
      method: 'POST',
      url: `/v1/products/${id}/review`,
      headers: bearer(t.org.secret_key),
      payload: { images: [{ image_id: images[0], decision: 'accepted', settings: { background: '#ff0000', shadow: 'none' } }, { image_id: images[1], decision: 'rejected' }] },
    });
    expect(review.statusCode).toBe(200);
    const res = await get(`/v1/products/export?ids=${id}`);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    const zip = openZip(res.rawPayload);
    expect(zip.names.sort()).toEqual(['manifest.json', `SKU-42/0-${images[0]}.jpg`, `SKU-42/2-${images[2]}.jpg`].sort());
    expect(zip.manifest.entries).toHaveLength(2);
    for (const entry of zip.manifest.entries) {
      const data = zip.read(entry.path);
      expect(createHash('sha256').update(data).digest('hex')).toBe(entry.sha256);
      expect(data.length).toBe(entry.bytes);
      expect(entry.width).toBe(2048);
    }
    expect(zip.manifest.skipped).toEqual([{ product_id: id, image_id: images[1], reason: 'not_selected', image_review_status: 'rejected' }]);
    expect(zip.names.some((n) => /\.(glb|usdz)$/.test(n))).toBe(false);

    const withRejected = openZip((await get(`/v1/products/export?ids=${id}&image_review_status=rejected`)).rawPayload);
    expect(withRejected.manifest.entries.map((e: { image_id: string }) => e.image_id)).toEqual([images[1]]);
  });

  it('caches finished images: a second export writes no new file', async () => {
    const id = await seedProduct(t, t.org.org_id);
    await attachRealImages(t, id, 2);
    await get(`/v1/products/export?ids=${id}`);
    const before = await t.deps.storage.list(`orgs/${t.org.org_id}/finished/`);
    const again = await get(`/v1/products/export?ids=${id}`);
    expect(again.statusCode).toBe(200);
    expect(await t.deps.storage.list(`orgs/${t.org.org_id}/finished/`)).toEqual(before);
  });

  it('selects by the list filters', async () => {
    const org = await t.bootstrap();
    const a = await seedProduct(t, org.org_id, { tags: ['summer'] });
    const b = await seedProduct(t, org.org_id, { tags: ['winter'] });
    await attachRealImages(t, a, 1);
    await attachRealImages(t, b, 1);
    const zip = openZip((await get('/v1/products/export?tag=summer', org.secret_key)).rawPayload);
    expect(zip.manifest.entries.map((e: { product_id: string }) => e.product_id)).toEqual([a]);
  });
});
