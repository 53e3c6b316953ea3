import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestApp } from '../../test/app.js';
import { waitFor } from '../../test/fixture-server.js';
import { createWorkingTestApp } from '../../test/worker.js';
import { boxGlb } from '../../test/upload-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await createWorkingTestApp();
});
afterAll(async () => t?.close());

const get = (id: string) => t.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(t.org.secret_key) }).then((r) => r.json());

describe('a model from the user\'s disk', () => {
  it('upload a GLB, import it with model_path: 202 at once, no credits, the product reaches model_status ready', async () => {
    const glb = await boxGlb(0.2);
    const up = await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(t.org.secret_key), 'content-type': 'model/gltf-binary' }, payload: glb });
    expect(up.statusCode, up.body).toBe(201);
    const balance = async () => (await t.deps.database.db.selectFrom('organizations').select('credit_balance').where('id', '=', t.org.org_id).executeTakeFirstOrThrow()).credit_balance;
    const before = await balance();
    const created = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { model_path: up.json().path, title: 'Box from disk' } });
    expect(created.statusCode, created.body).toBe(202);
    expect(created.json()).toMatchObject({ model_status: 'queued', title: 'Box from disk', source: { kind: 'model_path', model_path: up.json().path } });
    const p = await waitFor(async () => {
      const x = await get(created.json().id);
      return x.model_status === 'ready' || x.model_status === 'failed' ? x : undefined;
    }, 110_000, 'model import').catch(async (err) => {
      throw new Error(`${err.message}: ${JSON.stringify(await get(created.json().id))}`);
    });
    expect(p.model_status, JSON.stringify(p.error)).toBe('ready');
    expect(p.model.dimensions.width).toBeCloseTo(0.2, 3);
    expect(p.model.usdz_url).toMatch(/\/files\/orgs\/.+\/pub\/[0-9a-z]{32}\.usdz$/);
    // the imported model is a browser asset, served publicly under a random name
    const model = await t.app.inject({ method: 'GET', url: new URL(p.model_url).pathname });
    expect(model.statusCode).toBe(200);
    expect(model.rawPayload.readUInt32LE(0)).toBe(0x46546c67);
    expect(await balance()).toBe(before);
    // the upload is now in use: the sweep keeps it
    const row = await t.deps.database.db.selectFrom('uploads').select('used_at').where('path', '=', up.json().path).executeTakeFirstOrThrow();
    expect(row.used_at).not.toBeNull();
  }, 120_000);

  it('exactly one source: model_path with model_url or image_paths is a 422', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { model_path: 'uploads/x.glb', model_url: 'https://example.com/a.glb' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details.errors[0].message).toMatch(/model_path/);
    const unknown = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { model_path: 'uploads/nothing.glb' } });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.details.errors).toEqual([{ path: 'body.model_path', message: 'is not an upload of this organization' }]);
  });
});
