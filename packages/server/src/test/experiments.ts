import { expect } from 'vitest';
import { bearer, type TestApp } from './app.js';

export const SHOP = 'https://shop.example';

export async function startExperiment(t: TestApp, key: string, body: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/experiments', headers: bearer(key), payload: { arms: { '3d': 0.5, poster: 0.5 }, ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string } & Record<string, any>;
}

/** Events of one viewer from a shop's page, as the element sends them in an experiment. */
export async function shopBeacon(t: TestApp, pk: string, events: object[]) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/beacon', headers: { ...bearer(pk), origin: SHOP }, payload: { events } });
  expect(res.statusCode, res.body).toBe(202);
}
