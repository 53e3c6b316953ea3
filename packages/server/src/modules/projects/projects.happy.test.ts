import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, headers: Record<string, string> = bearer(t.org.secret_key)) =>
  t.app.inject({ method, url, headers, ...(payload && { payload }) });

describe('projects', () => {
  it('creates a project with normalised domains, then lists and retrieves it', async () => {
    const res = await call('POST', '/v1/projects', { name: 'Storefront', allowed_domains: ['https://Store.Example', 'https://store.example', 'https://*.cdn.example'] });
    expect(res.statusCode, res.body).toBe(201);
    const p = res.json();
    expect(p).toMatchObject({ object: 'project', org_id: t.org.org_id, name: 'Storefront', allowed_domains: ['https://store.example', 'https://*.cdn.example'] });
    expect(p.id).toMatch(/^proj_/);
    expect(p.created_at).toBe(p.updated_at);
    expect((await call('GET', `/v1/projects/${p.id}`)).json()).toEqual(p);
    const list = (await call('GET', '/v1/projects?limit=100')).json();
    expect(list.data.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining([t.org.project_id, p.id]));
    expect(list.total).toBe(list.data.length);
  });

  it("renames a project and replaces its domains; its publishable keys follow the new domains at once", async () => {
    const origin = 'https://new-shop.example';
    const beacon = () =>
      t.app.inject({ method: 'POST', url: '/v1/beacon', headers: { ...bearer(t.org.publishable_key), origin }, payload: { events: [{ type: 'view', product_id: 'prod_x' }] } });
    expect((await beacon()).statusCode).toBe(403);
    const res = await call('PATCH', `/v1/projects/${t.org.project_id}`, { name: 'Renamed', allowed_domains: [origin] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: t.org.project_id, name: 'Renamed', allowed_domains: [origin] });
    expect((await call('GET', `/v1/projects/${t.org.project_id}`)).json().name).toBe('Renamed');
    expect((await beacon()).statusCode).toBe(202);
  });

  it('an admin signed in to the dashboard creates and changes projects with the session', async () => {
    const admin = await t.member(t.org.org_id, 'admin');
    const cookie = await sessionCookie(t.app, admin.email, admin.password);
    const created = await call('POST', '/v1/projects', { name: 'By admin' }, { cookie });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().allowed_domains).toEqual([]);
    const patched = await call('PATCH', `/v1/projects/${created.json().id}`, { name: 'By admin, renamed' }, { cookie });
    expect(patched.json().name).toBe('By admin, renamed');
  });
});
