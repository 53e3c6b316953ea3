import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { authMatrix } from '../../test/auth-matrix.js';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';
import { SHOP, startExperiment } from '../../test/experiments.js';

const unknownExperiment = 'expt_00000000000000000000000000';
const unknownOrg = 'org_00000000000000000000000000';
const arms = { '3d': 0.5, poster: 0.5 };

/** Each organization gets a product and a running experiment on it to be read, renamed, stopped and deleted. */
const setup = async (t: TestApp, key: string, orgId: string) => {
  const productId = await seedProduct(t, orgId);
  const e = await startExperiment(t, key, { name: 'matrix', product_ids: [productId] });
  return { experimentId: e.id, orgId };
};

const byId = (method: 'GET' | 'PATCH' | 'DELETE' | 'POST', suffix = '', payload?: object) => ({
  request: (c: { ids: Record<string, string> }) => ({ method, url: `/v1/experiments/${c.ids.experimentId}${suffix}`, ...(payload && { payload }) }),
  otherOrg: (c: { idsB: Record<string, string> }) => ({ method, url: `/v1/experiments/${c.idsB.experimentId}${suffix}`, ...(payload && { payload }) }),
  unknownId: () => ({ method, url: `/v1/experiments/${unknownExperiment}${suffix}`, ...(payload && { payload }) }),
});

authMatrix('experiments', [
  {
    name: 'POST /v1/experiments',
    scope: 'products:write',
    setup: async (_t, _key, orgId) => ({ orgId }),
    request: () => ({ method: 'POST', url: '/v1/experiments', payload: { name: 'x', arms } }),
    otherOrg: (c) => ({ method: 'POST', url: '/v1/experiments', payload: { name: 'x', arms, org_id: c.idsB.orgId } }),
    unknownId: () => ({ method: 'POST', url: '/v1/experiments', payload: { name: 'x', arms, org_id: unknownOrg } }),
  },
  {
    name: 'GET /v1/experiments',
    scope: 'usage:read',
    request: () => ({ method: 'GET', url: '/v1/experiments' }),
    otherOrg: (c) => ({ method: 'GET', url: `/v1/experiments?org_id=${c.idsB.orgId}` }),
    unknownId: () => ({ method: 'GET', url: `/v1/experiments?org_id=${unknownOrg}` }),
  },
  { name: 'GET /v1/experiments/{id}', scope: 'usage:read', setup, ...byId('GET') },
  { name: 'GET /v1/experiments/{id}/results', scope: 'usage:read', ...byId('GET', '/results') },
  { name: 'PATCH /v1/experiments/{id}', scope: 'products:write', ...byId('PATCH', '', { name: 'renamed' }) },
  { name: 'POST /v1/experiments/{id}/stop', scope: 'products:write', ...byId('POST', '/stop') },
  { name: 'DELETE /v1/experiments/{id}', scope: 'products:write', ...byId('DELETE') },
  {
    name: 'POST /v1/conversions',
    scope: 'beacon:write',
    session: false,
    request: () => ({ method: 'POST', url: '/v1/conversions', payload: { viewer_id: 'v', name: 'purchase' } }),
    otherOrg: (c) => ({ method: 'POST', url: '/v1/conversions', payload: { viewer_id: 'v', name: 'purchase', org_id: c.idsB.orgId } }),
    unknownId: () => ({ method: 'POST', url: '/v1/conversions', payload: { viewer_id: 'v', name: 'purchase', org_id: unknownOrg } }),
  },
]);

describe('experiments and conversions: key types', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('a publishable key can neither record a server conversion nor read results, even from an allowed origin', async () => {
    const headers = { ...bearer(t.org.publishable_key), origin: SHOP };
    const conversion = await t.app.inject({ method: 'POST', url: '/v1/conversions', headers, payload: { viewer_id: 'v', name: 'purchase' } });
    expect(conversion.statusCode).toBe(403);
    expect(conversion.json().error.details.reason).toBe('scope');
    const list = await t.app.inject({ method: 'GET', url: '/v1/experiments', headers });
    expect(list.statusCode).toBe(403);
  });

  it('a dashboard session manages experiments, but a server conversion takes a secret key', async () => {
    const member = await t.member(t.org.org_id, 'admin');
    const cookie = await sessionCookie(t.app, member.email, member.password);
    const created = await t.app.inject({ method: 'POST', url: '/v1/experiments', headers: { cookie }, payload: { name: 'from the dashboard', arms } });
    expect(created.statusCode, created.body).toBe(201);
    const conversion = await t.app.inject({ method: 'POST', url: '/v1/conversions', headers: { cookie }, payload: { viewer_id: 'v', name: 'purchase' } });
    expect(conversion.statusCode).toBe(401);
    expect(conversion.json().error.code).toBe('unauthenticated');
  });
});
