import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';
import { attachRealImages } from '../../test/images.js';
import { seedProduct } from '../../test/products.js';
import { PREVIEW_SIZE } from './dashboard-api.preview.js';

let t: TestApp;
let cookie: string;
let productId: string;
let imageId: string;
beforeAll(async () => {
  t = await createTestApp();
  const o = await t.member(t.org.org_id, 'member');
  cookie = await sessionCookie(t.app, o.email, o.password);
  productId = await seedProduct(t, t.org.org_id, { imagesStatus: 'ready' });
  [imageId] = await attachRealImages(t, productId, 1);
});
afterAll(async () => t?.close());

const url = (query: string, product = productId, image = imageId) => `/dashboard/api/products/${product}/images/${image}/preview?${query}`;

describe('finished image preview', () => {
  it('draws the image on the chosen background, at preview size', async () => {
    const red = await t.app.inject({ method: 'GET', url: url('background=%23ff0000&shadow=none&padding=0.2'), headers: { cookie } });
    expect(red.statusCode).toBe(200);
    expect(red.headers['content-type']).toBe('image/jpeg');
    const { data, info } = await sharp(red.rawPayload).raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(PREVIEW_SIZE);
    // The corner is padding: pure background.
    expect(data[0]).toBeGreaterThan(240);
    expect(Math.max(data[1], data[2])).toBeLessThan(15);
    const clear = await t.app.inject({ method: 'GET', url: url('background=transparent'), headers: { cookie } });
    expect(clear.headers['content-type']).toBe('image/png');
    expect((await sharp(clear.rawPayload).metadata()).hasAlpha).toBe(true);
  });

  it('refuses bad settings, other organizations, unknown images and API keys', async () => {
    expect((await t.app.inject({ method: 'GET', url: url('background=red'), headers: { cookie } })).statusCode).toBe(422);
    expect((await t.app.inject({ method: 'GET', url: url('padding=0.9'), headers: { cookie } })).statusCode).toBe(422);
    const other = await t.bootstrap();
    const foreign = await seedProduct(t, other.org_id, { imagesStatus: 'ready' });
    const [foreignImage] = await attachRealImages(t, foreign, 1);
    expect((await t.app.inject({ method: 'GET', url: url('', foreign, foreignImage), headers: { cookie } })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: url('', productId, foreignImage), headers: { cookie } })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: url(''), headers: bearer(t.org.secret_key) })).statusCode).toBe(403);
  });
});
