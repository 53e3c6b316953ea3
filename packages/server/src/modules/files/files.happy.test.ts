import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';
import { attachRealImages } from '../../test/images.js';
import { seedProduct } from '../../test/products.js';
import { png } from '../../test/upload-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const pathOf = (url: string) => new URL(url).pathname;

describe('files', () => {
  it('an upload is read back byte for byte under /v1/files with a key, and with a session', async () => {
    const bytes = await png(80, 60);
    const up = await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(t.org.secret_key), 'content-type': 'image/png' }, payload: bytes });
    expect(up.statusCode, up.body).toBe(201);
    const res = await t.app.inject({ method: 'GET', url: pathOf(up.json().url), headers: bearer(t.org.secret_key) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(Number(res.headers['content-length'])).toBe(bytes.length);
    expect(res.rawPayload.equals(bytes)).toBe(true);
    const m = await t.member(t.org.org_id, 'member');
    const bySession = await t.app.inject({ method: 'GET', url: pathOf(up.json().url), headers: { cookie: await sessionCookie(t.app, m.email, m.password) } });
    expect(bySession.statusCode).toBe(200);
    expect(bySession.rawPayload.equals(bytes)).toBe(true);
  });

  it("a product's thumbnail is served publicly under /files, cacheable for a year, as the image it says it is", async () => {
    const productId = await seedProduct(t, t.org.org_id, { modelStatus: 'none' });
    await attachRealImages(t, productId, 1);
    const [image] = (await t.app.inject({ method: 'GET', url: `/v1/products/${productId}`, headers: bearer(t.org.secret_key) })).json().images;
    const thumb = await t.app.inject({ method: 'GET', url: pathOf(image.thumbnail_url) });
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(thumb.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(thumb.headers['content-type']).toMatch(/^image\//);
    expect(Number(thumb.headers['content-length'])).toBe(thumb.rawPayload.length);
    expect(thumb.rawPayload.length).toBeGreaterThan(100);
    // the original is the organization's: readable with its key
    const original = await t.app.inject({ method: 'GET', url: pathOf(image.url), headers: bearer(t.org.secret_key) });
    expect(original.statusCode).toBe(200);
    expect(original.headers['content-type']).toBe('image/jpeg');
  });
});
