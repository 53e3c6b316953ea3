import { authMatrix, byId } from '../../test/auth-matrix.js';
import type { TestApp } from '../../test/app.js';
import { seedImages, seedProduct } from '../../test/products.js';

const unknown = 'prod_00000000000000000000000000';
const seeded = async (t: TestApp, _key: string, orgId: string) => {
  const productId = await seedProduct(t, orgId);
  const [imageId] = await seedImages(t, productId, orgId, 1);
  return { productId, imageId };
};

authMatrix('assets', [
  {
    name: 'PATCH /v1/products/:id/images/:image_id',
    scope: 'products:write',
    setup: seeded,
    request: (c) => ({ method: 'PATCH', url: `/v1/products/${c.ids.productId}/images/${c.ids.imageId}`, payload: { position: 0 } }),
    // B's image under B's product, and B's image under A's own product: both read as unknown.
    otherOrg: (c) => ({ method: 'PATCH', url: `/v1/products/${c.ids.productId}/images/${c.idsB.imageId}`, payload: { position: 0 } }),
    unknownId: (c) => ({ method: 'PATCH', url: `/v1/products/${c.ids.productId}/images/img_00000000000000000000000000`, payload: { position: 0 } }),
  },
  {
    name: 'PATCH /v1/products/:id/images/:image_id (the other organization\'s product)',
    scope: 'products:write',
    setup: seeded,
    request: (c) => ({ method: 'PATCH', url: `/v1/products/${c.ids.productId}/images/${c.ids.imageId}`, payload: { position: 0 } }),
    otherOrg: (c) => ({ method: 'PATCH', url: `/v1/products/${c.idsB.productId}/images/${c.idsB.imageId}`, payload: { position: 0 } }),
    unknownId: (c) => ({ method: 'PATCH', url: `/v1/products/${unknown}/images/${c.ids.imageId}`, payload: { position: 0 } }),
  },
  {
    name: 'PATCH /v1/products/:id/model',
    scope: 'products:write',
    ...byId('PATCH', (id) => `/v1/products/${id}/model`, { idKey: 'productId', unknown, setup: seeded, payload: { settings: { exposure: 1 } } }),
  },
  {
    name: 'POST /v1/products/:id/model/rescale',
    scope: 'products:write',
    ...byId('POST', (id) => `/v1/products/${id}/model/rescale`, { idKey: 'productId', unknown, setup: seeded, payload: { scale: 2 } }),
  },
]);
