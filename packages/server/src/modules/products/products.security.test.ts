import { authMatrix } from '../../test/auth-matrix.js';
import { seedProduct } from '../../test/products.js';
import type { TestApp } from '../../test/app.js';

const seed = async (t: TestApp, _key: string, orgId: string) => ({ productId: await seedProduct(t, orgId, { tags: ['t'] }) });
const unknown = 'prod_00000000000000000000000000';

authMatrix('products', [
  { name: 'POST /v1/products', scope: 'products:write', request: () => ({ method: 'POST', url: '/v1/products', payload: { model_url: 'https://93.184.216.34/m.glb' } }) },
  { name: 'GET /v1/products', scope: 'products:read', request: () => ({ method: 'GET', url: '/v1/products' }) },
  { name: 'GET /v1/products/tags', scope: 'products:read', request: () => ({ method: 'GET', url: '/v1/products/tags' }) },
  { name: 'POST /v1/products/publish', scope: 'products:write', setup: seed, request: (c) => ({ method: 'POST', url: '/v1/products/publish', payload: { ids: [c.ids.productId] } }) },
  {
    name: 'GET /v1/products/:id',
    scope: 'products:read',
    publishable: true,
    setup: seed,
    request: (c) => ({ method: 'GET', url: `/v1/products/${c.ids.productId}` }),
    otherOrg: (c) => ({ method: 'GET', url: `/v1/products/${c.idsB.productId}` }),
    unknownId: () => ({ method: 'GET', url: `/v1/products/${unknown}` }),
  },
  {
    name: 'PATCH /v1/products/:id',
    scope: 'products:write',
    setup: seed,
    request: (c) => ({ method: 'PATCH', url: `/v1/products/${c.ids.productId}`, payload: { title: 'x' } }),
    otherOrg: (c) => ({ method: 'PATCH', url: `/v1/products/${c.idsB.productId}`, payload: { title: 'x' } }),
    unknownId: () => ({ method: 'PATCH', url: `/v1/products/${unknown}`, payload: { title: 'x' } }),
  },
  {
    name: 'DELETE /v1/products/:id',
    scope: 'products:write',
    setup: seed,
    request: (c) => ({ method: 'DELETE', url: `/v1/products/${c.ids.productId}` }),
    otherOrg: (c) => ({ method: 'DELETE', url: `/v1/products/${c.idsB.productId}` }),
    unknownId: () => ({ method: 'DELETE', url: `/v1/products/${unknown}` }),
  },
  { name: 'DELETE /v1/products?ids', scope: 'products:write', request: () => ({ method: 'DELETE', url: `/v1/products?ids=${unknown}` }) },
  {
    name: 'POST /v1/products/:id/order',
    scope: 'products:write',
    setup: seed,
    request: (c) => ({ method: 'POST', url: `/v1/products/${c.ids.productId}/order` }),
    otherOrg: (c) => ({ method: 'POST', url: `/v1/products/${c.idsB.productId}/order` }),
    unknownId: () => ({ method: 'POST', url: `/v1/products/${unknown}/order` }),
  },
  { name: 'POST /v1/uploads', scope: 'products:write', request: () => ({ method: 'POST', url: '/v1/uploads', headers: { 'content-type': 'image/png' }, payload: Buffer.from('89504e470d0a1a0a', 'hex') }) },
]);
