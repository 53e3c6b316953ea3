import { glbBytes, variantBoxDocument } from '@plinth/media/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { TEST_ALLOW } from '../../test/products.js';
import { registerJobHandlers } from '../../worker.js';

/**
 * DESIGN section 15 on the server: variants survive an import with one USDZ each, the viewer settings are
 * validated with the envelope and reach the embed, and a rescale moves the hotspots with the model.
 */
let t: TestApp;
let web: FixtureServer;
let product: any;

beforeAll(async () => {
  web = await startFixtureServer();
  web.set('/chair.glb', await glbBytes(variantBoxDocument([0.5, 0.4, 0.3]).doc), 'model/gltf-binary');
  t = await createTestApp(TEST_ALLOW);
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
  const res = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { model_url: web.url('/chair.glb') } });
  expect(res.statusCode).toBe(202);
  product = await waitFor(async () => ((p) => (p.model_status !== 'queued' && p.model_status !== 'generating' ? p : undefined))(await get(res.json().id)), 90_000, 'the import');
}, 180_000);

afterAll(async () => {
  await t?.close();
  await web?.close();
});

const get = (id: string) => t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key) }).then((r) => r.json());
const patch = (settings: unknown) => t.app.inject({ method: 'PATCH', url: `/v1/products/${product.id}/model`, headers: bearer(t.org.secret_key), payload: { settings } });
const hotspot = (i: number, over: object = {}) => ({ id: `h${i}`, position: [0.1, 0.2, 0.15], normal: [0, 0, 1], label: `Spot ${i}`, ...over });
const cta = { title: 'Oak chair', subtitle: 'Free delivery', price: '$129', button_label: 'Buy', url: 'https://shop.example/chair' };

async function rejected(settings: unknown) {
  const res = await patch(settings);
  expect(res.statusCode).toBe(422);
  return res.json().error;
}

describe('variants, hotspots, dimensions and AR settings', { timeout: 180_000 }, () => {
  it('imports a model with three variants and one USDZ per variant whose materials differ', async () => {
    expect(product.model_status).toBe('ready');
    expect(product.model.variants).toEqual([{ name: 'Red' }, { name: 'Green' }, { name: 'Blue' }]);
    expect(Object.keys(product.model.delivery.usdz_variants)).toEqual(['Red', 'Green', 'Blue']);
    const layers = new Set<string>();
    for (const url of Object.values<string>(product.model.delivery.usdz_variants)) {
      const res = await t.app.inject({ method: 'GET', url: new URL(url).pathname });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.subarray(0, 2).toString()).toBe('PK');
      layers.add(String(res.rawPayload.toString('latin1').match(/inputs:diffuseColor = \([^)]*\)/)?.[0]));
    }
    expect(layers.size).toBe(3);
  });

  it('refuses bad settings with 422 naming the path', async () => {
    const long = await rejected({ hotspots: [hotspot(0, { label: 'x'.repeat(200) })] });
    expect(long.code).toBe('validation_failed');
    expect(long.details.errors.map((e: any) => e.path)).toContain('body.settings.hotspots[0].label');
    const http = await rejected({ ar_call_to_action: { ...cta, url: 'http://shop.example/chair' } });
    expect(http.details.errors.map((e: any) => e.path)).toContain('body.settings.ar_call_to_action.url');
    const many = await rejected({ hotspots: Array.from({ length: 21 }, (_, i) => hotspot(i)) });
    expect(many.details.errors.map((e: any) => e.path)).toContain('body.settings.hotspots');
    const unknown = await rejected({ default_variant: 'Purple' });
    expect(unknown.details.errors).toEqual([{ path: 'body.settings.default_variant', message: 'must be one of: "Red", "Green", "Blue"' }]);
    const twice = await rejected({ hotspots: [hotspot(1), hotspot(1)] });
    expect(twice.details.errors.map((e: any) => e.path)).toEqual(['body.settings.hotspots[1].id']);
    expect((await rejected({ ar_placement: 'ceiling' })).details.errors[0].path).toBe('body.settings.ar_placement');
  });

  it('saves the settings, serves them to the embed, and a rescale moves the hotspots', async () => {
    const settings = {
      default_variant: 'Blue',
      variant_picker: true,
      hotspots: [hotspot(1, { text: 'Solid oak legs.' }), hotspot(2)],
      show_dimensions: true,
      units: 'imperial',
      ar_placement: 'wall',
      ar_scale: 'fixed',
      ar_call_to_action: cta,
    };
    const res = await patch(settings);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().model.settings).toMatchObject(settings);
    const published = await t.app.inject({ method: 'POST', url: '/v1/products/publish', headers: bearer(t.org.secret_key), payload: { ids: [product.id] } });
    expect(published.json().updated, published.body).toEqual([product.id]);
    const embed = await t.app.inject({ method: 'GET', url: `/embed/products/${product.id}`, headers: { ...bearer(t.org.publishable_key), origin: 'https://shop.example' } });
    expect(embed.statusCode, embed.body).toBe(200);
    expect(embed.json().viewer).toMatchObject(settings);
    expect(embed.json().variants).toHaveLength(3);
    expect(Object.keys(embed.json().usdz_variants)).toEqual(['Red', 'Green', 'Blue']);

    // null removes a setting, back to its default
    expect((await patch({ ar_call_to_action: null })).json().model.settings.ar_call_to_action).toBeUndefined();

    const rescaled = await t.app.inject({ method: 'POST', url: `/v1/products/${product.id}/model/rescale`, headers: bearer(t.org.secret_key), payload: { scale: 2 } });
    expect(rescaled.statusCode, rescaled.body).toBe(200);
    const model = rescaled.json().model;
    expect(model.dimensions.width).toBeCloseTo(1, 3);
    expect(model.settings.hotspots[0].position).toEqual([0.2, 0.4, 0.3]);
    expect(model.settings.hotspots[0].normal).toEqual([0, 0, 1]);
    expect(model.variants).toHaveLength(3);
    expect(Object.values(model.delivery.usdz_variants)).not.toEqual(Object.values(product.model.delivery.usdz_variants));
  });
});
