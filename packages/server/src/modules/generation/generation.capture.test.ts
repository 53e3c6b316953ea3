import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { productPhoto } from '../../test/images.js';
import { quoteAndCommit, TEST_ALLOW } from '../../test/products.js';
import { registerJobHandlers } from '../../worker.js';

/**
 * Capture input end to end: `capture` and `dimensions` are part of the quote and the product's source, and
 * a generation that cannot find the cameras ends failed with its reason and a refund, never a blob marked
 * ready. The photos here are flat-coloured synthetic products: nothing for structure from motion to match,
 * exactly like a capture of a textureless product without the mat.
 */
let t: TestApp;
let noColmap: TestApp;
let web: FixtureServer;

beforeAll(async () => {
  web = await startFixtureServer();
  for (let i = 0; i < 8; i++) web.set(`/view-${i}.jpg`, await productPhoto(640, 480, { r: 40 + i * 30, g: 120, b: 180 }), 'image/jpeg');
  t = await createTestApp({ ...TEST_ALLOW, PLINTH_GENERATOR_TRIANGLES: '2000' });
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
  noColmap = await createTestApp({ ...TEST_ALLOW, PLINTH_GENERATOR_TRIANGLES: '2000', PLINTH_COLMAP_PATH: '/nonexistent/colmap' });
  registerJobHandlers(noColmap.deps);
  await noColmap.deps.jobs.start();
});

afterAll(async () => {
  await t?.close();
  await noColmap?.close();
  await web?.close();
});

const views = () => [0, 1, 2, 3, 4, 5, 6, 7].map((i) => web.url(`/view-${i}.jpg`));
const settled = (app: TestApp, key: string, id: string) =>
  waitFor(async () => {
    const p = (await app.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: bearer(key) })).json();
    return p.model_status === 'ready' || p.model_status === 'failed' ? p : undefined;
  }, 180_000, 'model');

async function ledger(app: TestApp, orgId: string) {
  const rows = await app.deps.database.db.selectFrom('credit_ledger').select(['delta', 'reason']).where('org_id', '=', orgId).orderBy('id').execute();
  return rows.map(({ delta, reason }) => ({ delta, reason }));
}

describe('capture and dimensions on create', () => {
  it('are quoted, estimated per photo, and kept in the source', async () => {
    const body = { image_urls: views(), capture: { kind: 'walkaround' }, dimensions: { height: 0.16 } };
    const quote = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: body });
    expect(quote.statusCode).toBe(200);
    expect(quote.json().input).toMatchObject({ capture: { kind: 'walkaround' }, dimensions: { height: 0.16 } });
    const turntable = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { ...body, capture: { kind: 'turntable' } } });
    // Recovering cameras costs time per photo; the turntable path skips it.
    expect(quote.json().estimated_seconds).toBeGreaterThan(turntable.json().estimated_seconds);
    // A commit that changes the quoted capture is refused.
    const changed = await t.app.inject({
      method: 'POST',
      url: '/v1/products',
      headers: bearer(t.org.secret_key),
      payload: { resume_token: quote.json().resume_token, dimensions: { height: 0.2 } },
    });
    expect(changed.statusCode).toBe(400);
    expect(changed.json().error.code).toBe('quote_changed');
  });

  it('refuses a capture kind or a size it does not know', async () => {
    for (const extra of [{ capture: { kind: 'drone' } }, { dimensions: { height: -1 } }, { dimensions: { weight: 2 } }]) {
      const res = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(t.org.secret_key), payload: { image_urls: views(), ...extra } });
      expect(res.statusCode, JSON.stringify(extra)).toBe(422);
      expect(res.json().error.code).toBe('validation_failed');
    }
  });

  it('auto on photos with nothing to match fails with poses_not_found and refunds the model', { timeout: 240_000 }, async () => {
    const org = await t.bootstrap({ credits: 100 });
    const created = await quoteAndCommit(t, org.secret_key, { image_urls: views(), dimensions: { height: 0.2 } });
    const p = await settled(t, org.secret_key, created.id);
    expect(p.model_status).toBe('failed');
    expect(p.error.code).toBe('poses_not_found');
    expect(p.model_url).toBeNull();
    expect(p.source).toMatchObject({ kind: 'image_urls', dimensions: { height: 0.2 } });
    const rows = await ledger(t, org.org_id);
    expect(rows.at(-1)).toEqual({ delta: 20, reason: 'refund' });
  });

  it('turntable needs no camera recovery and says how the model was made', { timeout: 240_000 }, async () => {
    const created = await quoteAndCommit(noColmap, noColmap.org.secret_key, { image_urls: views(), capture: { kind: 'turntable' }, dimensions: { height: 0.3 } });
    const p = await settled(noColmap, noColmap.org.secret_key, created.id);
    expect(p.model_status, JSON.stringify(p.error)).toBe('ready');
    expect(p.source.capture).toEqual({ kind: 'turntable' });
    expect(p.model.quality).toMatchObject({ method: 'turntable_hull', pose_source: 'assumed', views_used: 8, views_total: 8, scale_source: 'given' });
    // Checked against its photos like any carved model.
    expect(p.model.quality.silhouette_iou.median).toBeGreaterThanOrEqual(0.85);
    expect(p.model.quality.largest_piece).toBeGreaterThanOrEqual(0.95);
    expect(p.model.dimensions.height).toBeCloseTo(0.3, 2);
  });

  it('auto without COLMAP installed fails with tool_missing and a refund', { timeout: 240_000 }, async () => {
    const org = await noColmap.bootstrap({ credits: 100 });
    const created = await quoteAndCommit(noColmap, org.secret_key, { image_urls: views() });
    const p = await settled(noColmap, org.secret_key, created.id);
    expect(p.model_status).toBe('failed');
    expect(p.error.code).toBe('tool_missing');
    expect((await ledger(noColmap, org.org_id)).at(-1)).toEqual({ delta: 20, reason: 'refund' });
  });
});
