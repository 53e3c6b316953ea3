import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { authMatrix } from '../../test/auth-matrix.js';
import { attachRealImages } from '../../test/images.js';
import { seedProduct } from '../../test/products.js';
import { png } from '../../test/upload-fixtures.js';

const pathOf = (url: string) => new URL(url).pathname;

async function uploadPng(t: TestApp, key: string) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(key), 'content-type': 'image/png' }, payload: await png() });
  return res.json() as { path: string; url: string };
}

authMatrix('files', [
  {
    name: 'GET /v1/files/{key}',
    scope: 'products:read',
    // A publishable key is let through to a 404: private files (uploads, originals, masters) do not exist for it.
    publishable: true,
    setup: async (t, key) => ({ file: pathOf((await uploadPng(t, key)).url) }),
    request: (ctx) => ({ method: 'GET', url: ctx.ids.file }),
    otherOrg: (ctx) => ({ method: 'GET', url: ctx.idsB.file }),
    unknownId: (ctx) => ({ method: 'GET', url: `/v1/files/orgs/${ctx.orgA}/uploads/${'0'.repeat(32)}.png` }),
  },
]);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('/v1/files/ and a publishable key', () => {
  it('is a 404 for a file of its own organization, from an allowed origin', async () => {
    const file = pathOf((await uploadPng(t, t.org.secret_key)).url);
    expect((await t.app.inject({ method: 'GET', url: file, headers: bearer(t.org.secret_key) })).statusCode).toBe(200);
    const res = await t.app.inject({ method: 'GET', url: file, headers: { ...bearer(t.org.publishable_key), origin: 'https://shop.example' } });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
  });
});

describe('/files/ serves browser assets only', () => {
  it('a product image: thumbnail and mask are public, the original is private to the organization', async () => {
    const productId = await seedProduct(t, t.org.org_id, { modelStatus: 'none' });
    await attachRealImages(t, productId, 2);
    const p = (await t.app.inject({ method: 'GET', url: `/v1/products/${productId}`, headers: bearer(t.org.secret_key) })).json();
    const [one, two] = p.images;
    const thumb = await t.app.inject({ method: 'GET', url: pathOf(one.thumbnail_url) });
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['access-control-allow-origin']).toBe('*');
    expect(thumb.headers['cache-control']).toContain('immutable');
    // neither route lets a stored file run as a page on the API's origin
    expect(thumb.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(thumb.headers['x-content-type-options']).toBe('nosniff');

    // the original is under /v1/files: no key 401, own key 200, another organization 404
    expect(pathOf(one.url)).toMatch(new RegExp(`^/v1/files/orgs/${t.org.org_id}/products/${productId}/originals/[0-9a-z]{32}\\.jpg$`));
    expect((await t.app.inject({ method: 'GET', url: pathOf(one.url) })).statusCode).toBe(401);
    const own = await t.app.inject({ method: 'GET', url: pathOf(one.url), headers: bearer(t.org.secret_key) });
    expect(own.statusCode).toBe(200);
    expect(own.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(own.headers['cache-control']).toBe('private, no-store');
    const other = await t.bootstrap();
    expect((await t.app.inject({ method: 'GET', url: pathOf(one.url), headers: bearer(other.secret_key) })).statusCode).toBe(404);
    // and the public route does not serve it, with or without a key
    const publicPath = pathOf(one.url).replace('/v1/files/', '/files/');
    expect((await t.app.inject({ method: 'GET', url: publicPath })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: publicPath, headers: bearer(t.org.secret_key) })).statusCode).toBe(404);

    // a thumbnail's name says nothing about the original's, or about the next image's
    const name = (u: string) => pathOf(u).split('/').pop()!.slice(0, 32);
    const names = [name(one.url), name(one.thumbnail_url), name(two.url), name(two.thumbnail_url)];
    expect(new Set(names).size).toBe(4);
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        let common = 0;
        while (names[i][common] === names[j][common]) common++;
        expect(common).toBeLessThan(6);
      }
    }
  });

  it('a path outside the asset layout is a 404 envelope, whatever it points at', async () => {
    for (const url of ['/files/secret', '/files/orgs/x/uploads/../../secret', `/files/orgs/${t.org.org_id}/uploads/`]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
  });
});
