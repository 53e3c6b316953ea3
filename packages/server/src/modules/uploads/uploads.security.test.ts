import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import type { BootstrapResult } from '../orgs/orgs.service.js';
import { boxGlb, png } from '../../test/upload-fixtures.js';

let t: TestApp;
let a: BootstrapResult;
let b: BootstrapResult;
beforeAll(async () => {
  t = await createTestApp();
  a = t.org;
  b = await t.bootstrap();
});
afterAll(async () => t?.close());

const upload = (key: string, data: Buffer, type = 'image/png', extra: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { ...bearer(key), 'content-type': type, ...extra }, payload: data });
const pathOf = (url: string) => new URL(url).pathname;

/** Neighbours of a name, as a guesser of sequential ids would try them. */
function neighbours(name: string): string[] {
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  const [stem, ext] = [name.slice(0, 32), name.slice(32)];
  const out = [name];
  for (const d of [-2, -1, 1, 2]) {
    const i = alphabet.indexOf(stem[31]);
    out.push(stem.slice(0, 31) + alphabet[(i + d + 32) % 32] + ext);
  }
  return out;
}

describe('uploads are private to their organization', () => {
  it('the audit, replayed: simultaneous uploads by A and B, B guesses A\'s file from its own name; never found', async () => {
    let probes = 0;
    for (let round = 0; round < 30; round++) {
      const [ra, rb] = await Promise.all([upload(a.secret_key, await png(32 + round, 32)), upload(b.secret_key, await png(32, 32 + round))]);
      expect(ra.statusCode).toBe(201);
      expect(rb.statusCode).toBe(201);
      const nameA = ra.json().path.slice('uploads/'.length);
      const nameB = rb.json().path.slice('uploads/'.length);
      // no shared time prefix, no counter suffix between names made at the same moment
      let common = 0;
      while (nameA[common] === nameB[common]) common++;
      expect(common).toBeLessThan(6);
      for (const guess of neighbours(nameB)) {
        for (const url of [`/files/orgs/${a.org_id}/uploads/${guess}`, `/v1/files/orgs/${a.org_id}/uploads/${guess}`, `/files/orgs/${b.org_id}/uploads/${guess}`]) {
          const res = await t.app.inject({ method: 'GET', url, headers: bearer(b.secret_key) });
          expect(res.statusCode, url).toBe(404);
          expect(res.json().error.code).toBe('not_found');
          probes++;
        }
      }
      // even the exact URL of A's upload, known to B somehow, is a 404 for B and on the public route
      const exact = pathOf(ra.json().url);
      expect((await t.app.inject({ method: 'GET', url: exact, headers: bearer(b.secret_key) })).statusCode).toBe(404);
      expect((await t.app.inject({ method: 'GET', url: exact.replace('/v1/files/', '/files/') })).statusCode).toBe(404);
      expect((await t.app.inject({ method: 'GET', url: exact, headers: bearer(a.secret_key) })).statusCode).toBe(200);
    }
    expect(probes).toBe(30 * 5 * 3);
  });

  it("another organization's upload path in image_paths or model_path is a 422 naming the field, never its content", async () => {
    const image = (await upload(a.secret_key, await png())).json();
    const model = (await upload(a.secret_key, await boxGlb(), 'model/gltf-binary')).json();
    const quote = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(b.secret_key), payload: { image_paths: [image.path] } });
    expect(quote.statusCode).toBe(422);
    expect(quote.json().error.details.errors).toEqual([{ path: 'body.image_paths[0]', message: 'is not an upload of this organization' }]);
    const imported = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(b.secret_key), payload: { model_path: model.path } });
    expect(imported.statusCode).toBe(422);
    expect(imported.json().error.details.errors).toEqual([{ path: 'body.model_path', message: 'is not an upload of this organization' }]);
    for (const res of [quote, imported]) {
      expect(res.body).not.toContain(image.sha256);
      expect(res.body).not.toContain(a.org_id);
    }
    const count = await t.deps.database.db.selectFrom('products').select('id').where('org_id', '=', b.org_id).execute();
    expect(count).toEqual([]);
  });

  it('an upload of the wrong kind is refused for the field: a model in image_paths, an image in model_path', async () => {
    const image = (await upload(a.secret_key, await png())).json();
    const model = (await upload(a.secret_key, await boxGlb(), 'model/gltf-binary')).json();
    const q = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(a.secret_key), payload: { image_paths: [model.path] } });
    expect(q.statusCode).toBe(422);
    expect(q.json().error.details.errors[0].path).toBe('body.image_paths[0]');
    const m = await t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(a.secret_key), payload: { model_path: image.path } });
    expect(m.statusCode).toBe(422);
    expect(m.json().error.details.errors[0].path).toBe('body.model_path');
  });

  it('a publishable key can neither upload nor read uploads; no key is 401', async () => {
    const image = (await upload(a.secret_key, await png())).json();
    const up = await upload(a.publishable_key, await png(), 'image/png', { origin: 'https://shop.example' });
    expect(up.statusCode).toBe(403);
    // Private files are for secret keys and sessions: to a publishable key they do not exist.
    const read = await t.app.inject({ method: 'GET', url: pathOf(image.url), headers: { ...bearer(a.publishable_key), origin: 'https://shop.example' } });
    expect(read.statusCode).toBe(404);
    const anon = await t.app.inject({ method: 'GET', url: pathOf(image.url) });
    expect(anon.statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: { 'content-type': 'image/png' }, payload: await png() })).statusCode).toBe(401);
  });

  it('an upload into another organization by org_id is a 404', async () => {
    const res = await t.app.inject({ method: 'POST', url: `/v1/uploads?org_id=${a.org_id}`, headers: { ...bearer(b.secret_key), 'content-type': 'image/png' }, payload: await png() });
    expect(res.statusCode).toBe(404);
    expect(await t.deps.storage.list(`orgs/${a.org_id}/uploads/`)).not.toHaveLength(0); // A's own, from the tests above
    const rows = await t.deps.database.db.selectFrom('uploads').select('org_id').where('org_id', '=', a.org_id).execute();
    expect(rows.length).toBe((await t.deps.storage.list(`orgs/${a.org_id}/uploads/`)).length);
  });
});
