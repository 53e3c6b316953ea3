import { authMatrix } from '../../test/auth-matrix.js';
import { bearer, type TestApp } from '../../test/app.js';

async function makeKey(t: TestApp, key: string, orgId: string) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/api_keys', headers: bearer(key), payload: { org_id: orgId, name: 'victim' } });
  return { keyId: (res.json() as { id: string }).id };
}

async function makeProject(t: TestApp, key: string, orgId: string) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/projects', headers: bearer(key), payload: { org_id: orgId, name: 'p' } });
  return { projectId: (res.json() as { id: string }).id };
}

authMatrix('keys and projects', [
  { name: 'GET /v1/api_keys', scope: null, request: () => ({ method: 'GET', url: '/v1/api_keys' }) },
  { name: 'POST /v1/api_keys', scope: null, request: () => ({ method: 'POST', url: '/v1/api_keys', payload: {} }) },
  {
    name: 'DELETE /v1/api_keys/:id',
    scope: null,
    setup: makeKey,
    request: (c) => ({ method: 'DELETE', url: `/v1/api_keys/${c.ids.keyId}` }),
    otherOrg: (c) => ({ method: 'DELETE', url: `/v1/api_keys/${c.idsB.keyId}` }),
    unknownId: () => ({ method: 'DELETE', url: '/v1/api_keys/key_00000000000000000000000000' }),
  },
  { name: 'GET /v1/projects', scope: null, request: () => ({ method: 'GET', url: '/v1/projects' }) },
  {
    name: 'GET /v1/projects/:id',
    scope: null,
    setup: makeProject,
    request: (c) => ({ method: 'GET', url: `/v1/projects/${c.ids.projectId}` }),
    otherOrg: (c) => ({ method: 'GET', url: `/v1/projects/${c.idsB.projectId}` }),
    unknownId: () => ({ method: 'GET', url: '/v1/projects/proj_00000000000000000000000000' }),
  },
  { name: 'POST /v1/projects', scope: null, request: () => ({ method: 'POST', url: '/v1/projects', payload: { name: 'x' } }) },
  {
    name: 'PATCH /v1/projects/:id',
    scope: null,
    setup: makeProject,
    request: (c) => ({ method: 'PATCH', url: `/v1/projects/${c.ids.projectId}`, payload: { name: 'y' } }),
    otherOrg: (c) => ({ method: 'PATCH', url: `/v1/projects/${c.idsB.projectId}`, payload: { name: 'y' } }),
    unknownId: () => ({ method: 'PATCH', url: '/v1/projects/proj_00000000000000000000000000', payload: { name: 'y' } }),
  },
]);
