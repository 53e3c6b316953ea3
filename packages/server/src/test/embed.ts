import { bearer, type TestApp } from './app.js';

/** The shop origin every test organization allows (see createTestApp). */
export const SHOP = 'https://shop.example';

/** The element's read of a product: the organization's publishable key, from the shop's page. */
export const embedRead = (t: TestApp, id: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/embed/products/${id}`, headers: { ...bearer(t.org.publishable_key), origin: SHOP, ...headers } });
