import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';
import { authMatrix } from '../../test/auth-matrix.js';
import { attachRealImages } from '../../test/images.js';
import { seedProduct } from '../../test/products.js';
import { openZip } from '../../test/zip.js';

authMatrix('export', [{ name: 'GET /v1/products/export', scope: 'products:read', request: () => ({ method: 'GET', url: '/v1/products/export' }) }]);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ PLINTH_EXPORT_SYNC_LIMIT: '24' });
});
afterAll(async () => t?.close());

const get = (url: string, key = t.org.secret_key) => t.app.inject({ method: 'GET', url, headers: bearer(key) });

describe('export: tenancy and archive names', { timeout: 120_000 }, () => {
  it('a custom_id like ../../etc/x gives a safe entry name', async () => {
    const id = await seedProduct(t, t.org.org_id, { customId: '../../etc/x' });
    const [image] = await attachRealImages(t, id, 1);
    const zip = openZip((await get(`/v1/products/export?ids=${id}`)).rawPayload);
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
    const zip = openZip((await get(`/v1/products/export?ids=${id}`)).rawPayload);
    expect(zip.manifest.entries).toEqual([]);
  });

  it("another organization's session exports none of this organization's products", async () => {
    const id = await seedProduct(t, t.org.org_id);
    await attachRealImages(t, id, 1);
    const owner = { email: `export-b-${Date.now()}@example.test`, password: 'export b password' };
    await t.bootstrap(owner);
    const cookie = await sessionCookie(t.app, owner.email, owner.password);
    const res = await t.app.inject({ method: 'GET', url: `/v1/products/export?ids=${id}`, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(openZip(res.rawPayload).manifest.entries).toEqual([]);
  });

  it('a download link is public but answers 404 for a forged signature, without saying more', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/exports/exp_nope/download?expires=9999999999&signature=abc' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 'not_found', details: null });
  });
});
