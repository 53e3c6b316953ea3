import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../test/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const create = (key: string, name: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/projects', headers: { ...bearer(t.org.secret_key), 'idempotency-key': key, ...headers }, payload: { name } });

const projectCount = async (name: string) =>
  Number(
    (await t.deps.database.db.selectFrom('projects').select((eb) => eb.fn.countAll<number>().as('n')).where('name', '=', name).executeTakeFirstOrThrow()).n,
  );

describe('Idempotency-Key', () => {
  it('100 parallel POSTs with one key make one effect and the same answer', async () => {
    const responses = await Promise.all(Array.from({ length: 100 }, () => create('parallel-1', 'parallel')));
    expect(await projectCount('parallel')).toBe(1);
    const ids = new Set(responses.map((r) => r.json().id));
    expect(ids.size).toBe(1);
    expect(responses.every((r) => r.statusCode === 201)).toBe(true);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true').length).toBe(99);
  });

  it('a sequential replay returns the stored answer', async () => {
    const first = await create('seq-1', 'seq');
    const second = await create('seq-1', 'seq');
    expect(second.statusCode).toBe(first.statusCode);
    expect(second.json()).toEqual(first.json());
    expect(await projectCount('seq')).toBe(1);
  });

  it('the same key with another body: 409 idempotency_conflict', async () => {
    await create('conflict-1', 'one');
    const res = await create('conflict-1', 'two');
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('idempotency_conflict');
    expect(await projectCount('two')).toBe(0);
  });

  it('keys are scoped per organization', async () => {
    const other = await t.bootstrap();
    const a = await create('shared-key', 'scoped');
    const b = await t.app.inject({
      method: 'POST',
      url: '/v1/projects',
      headers: { ...bearer(other.secret_key), 'idempotency-key': 'shared-key' },
      payload: { name: 'scoped' },
    });
    expect(b.statusCode).toBe(201);
    expect(b.json().id).not.toBe(a.json().id);
    expect(b.json().org_id).toBe(other.org_id);
  });

  it('a request that failed validation is not stored, so a corrected retry works', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/v1/projects',
      headers: { ...bearer(t.org.secret_key), 'idempotency-key': 'fix-1' },
      payload: { name: '' },
    });
    expect(bad.statusCode).toBe(422);
    const good = await create('fix-1', 'fixed');
    expect(good.statusCode).toBe(201);
  });

  it('refuses an over-long key with 400', async () => {
    const res = await create('k'.repeat(300), 'long');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
  });
});

describe('Idempotency-Key: replays belong to the first principal', () => {
  const createKey = (headers: Record<string, string>, key: string) =>
    t.app.inject({ method: 'POST', url: '/v1/api_keys', headers: { ...headers, 'idempotency-key': key }, payload: { name: 'deploy' } });

  it("a member session repeating an owner's key create gets 409, never the sk_", async () => {
    const first = await createKey(bearer(t.org.secret_key), 'create-deploy-key');
    expect(first.statusCode).toBe(201);
    expect(first.json().key).toMatch(/^sk_/);
    const m = await t.member(t.org.org_id, 'member');
    const cookie = await sessionCookie(t.app, m.email, m.password);
    const second = await createKey({ cookie }, 'create-deploy-key');
    expect(second.statusCode).toBe(409);
    expect(second.json().error.code).toBe('idempotency_conflict');
    expect(second.body).not.toContain('sk_');
    expect(second.body).not.toContain(first.json().key);
  });

  it('another key of the same organization gets 409 idempotency_conflict', async () => {
    const first = await create('other-principal', 'mine');
    expect(first.statusCode).toBe(201);
    const other = await createKey(bearer(t.org.secret_key), 'mint-second');
    const res = await create('other-principal', 'mine', bearer(other.json().key));
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('idempotency_conflict');
    expect(await projectCount('mine')).toBe(1);
  });

  it('a replay of a key create answers the record with secret_redacted, and nothing secret is stored', async () => {
    const first = await createKey(bearer(t.org.secret_key), 'redact-1');
    const again = await createKey(bearer(t.org.secret_key), 'redact-1');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const { key, ...record } = first.json();
    expect(key).toMatch(/^sk_/);
    expect(again.json()).toEqual({ ...record, secret_redacted: true });
    const rows = await t.deps.database.db.selectFrom('idempotency_keys').select('response_body').execute();
    for (const r of rows) expect(r.response_body ?? '').not.toMatch(/(sk|pk)_[A-Za-z0-9_-]{16,}|whsec_/);
  });

  it('a replay of a webhook create holds no whsec_ secret', async () => {
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/v1/webhooks',
        headers: { ...bearer(t.org.secret_key), 'idempotency-key': 'hook-1' },
        payload: { url: 'https://93.184.216.34/hooks', enabled: false },
      });
    const first = await send();
    expect(first.statusCode).toBe(201);
    expect(first.json().secret).toMatch(/^whsec_/);
    const again = await send();
    expect(again.statusCode).toBe(201);
    expect(again.json().secret).toBeUndefined();
    expect(again.json().secret_redacted).toBe(true);
    expect(again.json().id).toBe(first.json().id);
  });
});

describe('the OpenAPI document says what a replay leaves out', () => {
  it('created keys and webhook secrets document secret_redacted', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const created = doc.paths['/v1/api_keys'].post.responses['201'].content['application/json'].schema;
    expect(created.properties.secret_redacted).toBeDefined();
    expect(created.required).not.toContain('key');
    const hook = doc.paths['/v1/webhooks'].post.responses['201'].content['application/json'].schema;
    expect(hook.properties.secret_redacted).toBeDefined();
  });
});
