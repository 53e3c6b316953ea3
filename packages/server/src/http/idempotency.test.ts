import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../test/app.js';

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
