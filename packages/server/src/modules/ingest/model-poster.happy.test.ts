import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boxDocument, glbBytes } from '@plinth/media/test-support';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { TEST_ALLOW } from '../../test/products.js';
import { registerJobHandlers } from '../../worker.js';

let t: TestApp;
let web: FixtureServer;

beforeAll(async () => {
  web = await startFixtureServer();
  web.set('/box.glb', await glbBytes(boxDocument({ meshSize: [0.4, 0.3, 0.2] }).doc), 'model/gltf-binary');
  t = await createTestApp(TEST_ALLOW);
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
});
afterAll(async () => {
  await t?.close();
  await web?.close();
});

const balance = async () => (await t.deps.database.db.selectFrom('organizations').select('credit_balance').where('id', '=', t.org.org_id).executeTakeFirstOrThrow()).credit_balance;

describe('poster of an imported model', { timeout: 180_000 }, () => {
  it('renders one transparent poster at import, sets it as the thumbnail, and charges nothing', async () => {
    const before = await balance();
    const created = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { model_url: web.url('/box.glb') } });
    expect(created.statusCode, created.body).toBe(202);
    const p = await waitFor(async () => {
      const x = (await t.app.inject({ method: 'GET', url: `/v1/products/${created.json().id}`, headers: bearer(t.org.secret_key) })).json();
      return x.model_status !== 'queued' && x.model_status !== 'generating' ? x : undefined;
    }, 150_000, 'import');
    expect(p.model_status, JSON.stringify(p.error)).toBe('ready');
    expect(p.thumbnail_url).toMatch(/\.poster\.webp$/);
    const file = await t.app.inject({ method: 'GET', url: new URL(p.thumbnail_url).pathname });
    expect(file.statusCode).toBe(200);
    const image = sharp(file.rawPayload);
    const meta = await image.metadata();
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(['webp', 1024, 1024, true]);
    const { data, info } = await image.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const alphaAt = (x: number, y: number) => data[(y * info.width + x) * 4 + 3];
    expect(alphaAt(2, 2)).toBe(0); // background is transparent
    expect(alphaAt(512, 512)).toBe(255); // the model fills the middle
    expect(await balance()).toBe(before);
  });
});
