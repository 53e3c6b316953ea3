import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { attachRealImages } from '../../test/images.js';
import { seedProduct } from '../../test/products.js';

let t: TestApp;
let work: string;
beforeAll(async () => {
  t = await createTestApp({ PLINTH_EXPORT_SYNC_LIMIT: '24' });
  work = mkdtempSync(join(tmpdir(), 'plinth-export-'));
});
afterAll(async () => {
  await t?.close();
  rmSync(work, { recursive: true, force: true });
});

const get = (url: string, key = t.org.secret_key) => t.app.inject({ method: 'GET', url, headers: bearer(key) });

/** Opens the archive with the standard unzip tool, as a user would. */
function unzip(zip: Buffer) {
  const file = join(work, `${Math.random().toString(36).slice(2)}.zip`);
  writeFileSync(file, zip);
  execFileSync('unzip', ['-tq', file]);
  const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n');
  const read = (name: string) => execFileSync('unzip', ['-p', file, name], { maxBuffer: 64 * 1024 * 1024 });
  return { names, read, manifest: JSON.parse(read('manifest.json').toString('utf8')) };
}

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
    const zip = unzip(res.rawPayload);
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

    const withRejected = unzip((await get(`/v1/products/export?ids=${id}&image_review_status=rejected`)).rawPayload);
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

  it('201 products is 422', async () => {
    const ids = Array.from({ length: 201 }, (_, i) => `prod_${i}`).map((i) => `ids=${i}`).join('&');
    const res = await get(`/v1/products/export?${ids}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('validation_failed');
  });

  it('a custom_id like ../../etc/x gives a safe entry name', async () => {
    const id = await seedProduct(t, t.org.org_id, { customId: '../../etc/x' });
    const [image] = await attachRealImages(t, id, 1);
    const zip = unzip((await get(`/v1/products/export?ids=${id}`)).rawPayload);
    const entry = zip.names.find((n) => n.includes(image))!;
    expect(entry).toBe(`etc_x/0-${image}.jpg`);
    for (const n of zip.names) {
      expect(n.startsWith('/')).toBe(false);
      expect(n.split('/')).not.toContain('..');
    }
  });

  it("another organization's product is never exported", async () => {
    const other = await t.bootstrap();
    const id = await seedProduct(t, other.org_id);
    await attachRealImages(t, id, 1);
    const zip = unzip((await get(`/v1/products/export?ids=${id}`)).rawPayload);
    expect(zip.manifest.entries).toEqual([]);
  });

  it('selects by the list filters', async () => {
    const org = await t.bootstrap();
    const a = await seedProduct(t, org.org_id, { tags: ['summer'] });
    const b = await seedProduct(t, org.org_id, { tags: ['winter'] });
    await attachRealImages(t, a, 1);
    await attachRealImages(t, b, 1);
    const zip = unzip((await get('/v1/products/export?tag=summer', org.secret_key)).rawPayload);
    expect(zip.manifest.entries.map((e: { product_id: string }) => e.product_id)).toEqual([a]);
  });
});

describe('export security', () => {
  it('pk_ 403, scope-restricted key 403, no key 401', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/v1/products/export' })).statusCode).toBe(401);
    const pk = await t.app.inject({ method: 'GET', url: '/v1/products/export', headers: { ...bearer(t.org.publishable_key), origin: 'https://shop.example' } });
    expect(pk.statusCode).toBe(403);
    const restricted = (
      await t.app.inject({ method: 'POST', url: '/v1/api_keys', headers: bearer(t.org.secret_key), payload: { scopes: ['usage:read'] } })
    ).json().key;
    const res = await get('/v1/products/export', restricted);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.details.reason).toBe('scope');
  });

  it('a forged or expired download link is 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/exports/exp_nope/download?expires=9999999999&signature=abc' });
    expect(res.statusCode).toBe(404);
  });
});

