import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { embedRead, SHOP } from '../../test/embed.js';
import { seedProduct } from '../../test/products.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const embed = (id: string, headers: Record<string, string> = {}) => embedRead(t, id, headers);

describe('GET /embed/products/{id}', () => {
  it('answers what the element needs, with viewer defaults filled in', async () => {
    const id = await seedProduct(t, t.org.org_id, { status: 'published', title: 'Lamp' });
    const res = await embed(id);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      id,
      title: 'Lamp',
      model_url: expect.stringMatching(/\.glb$/),
      usdz_url: expect.stringMatching(/\.usdz$/),
      // A model stored before deliveries existed serves its one GLB to every device.
      sources: { web: body.model_url, mobile: body.model_url, usdz: body.usdz_url },
      poster_url: expect.stringMatching(/thumb\.webp$/),
      dimensions: { width: 0.3, height: 0.2, depth: 0.1 },
      viewer: {
        exposure: 1,
        shadow_intensity: 1,
        camera_orbit: null,
        environment: 'neutral',
        auto_rotate: false,
        default_variant: null,
        variant_picker: false,
        hotspots: [],
        show_dimensions: false,
        units: null,
        ar_placement: 'floor',
        ar_scale: 'auto',
        ar_call_to_action: null,
      },
      experiment: null,
      variants: [],
      usdz_variants: {},
    });
    expect(res.headers['access-control-allow-origin']).toBe(SHOP);
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+, stale-while-revalidate=\d+$/);
    expect(String(res.headers.vary)).toContain('Origin');
  });

  it('answers 304 with no body when If-None-Match holds the current tag', async () => {
    const id = await seedProduct(t, t.org.org_id, { status: 'published' });
    const first = await embed(id);
    const etag = String(first.headers.etag);
    const again = await embed(id, { 'if-none-match': `"other", ${etag}` });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await embed(id, { 'if-none-match': '"stale"' })).statusCode).toBe(200);
  });

  it('carries the viewer settings saved with PATCH /v1/products/{id}/model, under a new ETag', async () => {
    const id = await seedProduct(t, t.org.org_id, { status: 'published' });
    const before = await embed(id);
    const settings = { exposure: 1.4, shadow_intensity: 0.3, camera_orbit: '30deg 70deg 2m', environment: 'neutral', auto_rotate: true };
    const patch = await t.app.inject({ method: 'PATCH', url: `/v1/products/${id}/model`, headers: bearer(t.org.secret_key), payload: { settings } });
    expect(patch.statusCode, patch.body).toBe(200);
    const after = await embed(id);
    expect(after.json().viewer).toMatchObject(settings);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await embed(id, { 'if-none-match': String(before.headers.etag) })).statusCode).toBe(200);
  });
});
