import { authMatrix, byId } from '../../test/auth-matrix.js';
import type { TestApp } from '../../test/app.js';
import { seedImages, seedProduct } from '../../test/products.js';

const seeded = async (t: TestApp, _key: string, orgId: string) => {
  const productId = await seedProduct(t, orgId);
  await seedImages(t, productId, orgId, 1);
  return { productId };
};

authMatrix('review', [
  {
    name: 'POST /v1/products/:id/review',
    scope: 'products:write',
    ...byId('POST', (id) => `/v1/products/${id}/review`, { idKey: 'productId', unknown: 'prod_00000000000000000000000000', setup: seeded, payload: { model: { decision: 'accepted' } } }),
  },
]);
