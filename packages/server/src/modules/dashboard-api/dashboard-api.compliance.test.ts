import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';
import { attachRealImages } from '../../test/images.js';
import { seedProduct } from '../../test/products.js';

let t: TestApp;
let cookie: string;
beforeAll(async () => {
  t = await createTestApp();
  const o = await t.member(t.org.org_id, 'member');
  cookie = await sessionCookie(t.app, o.email, o.password);
});
afterAll(async () => t?.close());

const check = (product: string, image: string, headers: Record<string, string> = { cookie }) =>
  t.app.inject({ method: 'POST', url: `/dashboard/api/products/${product}/images/${image}/compliance`, headers });
const settings = (product: string, image: string, s: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/v1/products/${product}/review`, headers: bearer(t.org.secret_key), payload: { images: [{ image_id: image, settings: s }] } });
const notReady = async () => {
  const res = await t.app.inject({ method: 'GET', url: '/v1/products?channel_ready=false', headers: bearer(t.org.secret_key) });
  expect(res.statusCode).toBe(200);
  return (res.json().data as { id: string }[]).map((p) => p.id);
};

describe("an image's compliance", { timeout: 60_000 }, () => {
  it('is measured on demand, shown on the image, and filters the products that are not channel-ready', async () => {
    const id = await seedProduct(t, t.org.org_id, { imagesStatus: 'ready' });
    const [good, small] = await attachRealImages(t, id, 2);
    expect((await settings(id, good, { preset: 'square_1080' })).statusCode).toBe(200);
    expect((await settings(id, small, { preset: 'google_shopping', fill: 0.6 })).statusCode).toBe(200);

    const before = await t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key) });
    expect(before.json().images.map((i: { compliance: unknown }) => i.compliance)).toEqual([null, null]);

    const passed = await check(id, good);
    expect(passed.statusCode, passed.body).toBe(200);
    expect(passed.json()).toMatchObject({ preset: 'square_1080', passed: true });
    expect(await notReady()).not.toContain(id);

    const failed = await check(id, small);
    expect(failed.json()).toMatchObject({ preset: 'google_shopping', passed: false });
    expect(failed.json().checks.find((c: { code: string }) => c.code === 'fill')).toMatchObject({ passed: false, measured: 0.6, required: { min: 0.75, max: 0.9 } });
    expect(await notReady()).toContain(id);
    const after = await t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key) });
    expect(after.json().images.find((i: { image_id: string }) => i.image_id === small).compliance.passed).toBe(false);

    // New settings make a new image: its old result no longer stands.
    expect((await settings(id, small, { fill: null })).statusCode).toBe(200);
    expect(await notReady()).not.toContain(id);
    expect((await check(id, small)).json()).toMatchObject({ preset: 'google_shopping', passed: true });
  });

  it("another organization's image is 404; an API key is refused", async () => {
    const id = await seedProduct(t, t.org.org_id, { imagesStatus: 'ready' });
    const [image] = await attachRealImages(t, id, 1);
    const other = await t.bootstrap();
    const foreign = await seedProduct(t, other.org_id, { imagesStatus: 'ready' });
    const [foreignImage] = await attachRealImages(t, foreign, 1);
    expect((await check(foreign, foreignImage)).statusCode).toBe(404);
    expect((await check(id, foreignImage)).statusCode).toBe(404);
    const key = await check(id, image, bearer(t.org.secret_key));
    expect(key.statusCode).toBe(403);
    expect(key.json().error.code).toBeTruthy();
  });
});
