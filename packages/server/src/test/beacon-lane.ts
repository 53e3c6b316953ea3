import type { AddressInfo } from 'node:net';
import { expect, vi } from 'vitest';
import type { Deps } from '../deps.js';
import { FrontDoor } from '../http/front-door.js';
import { bearer, createTestApp, type TestApp } from './app.js';
import type { BootstrapResult } from '../modules/orgs/orgs.service.js';
import { BEACON_TYPES } from '../modules/analytics/analytics.types.js';

/**
 * The beacon's lane (beacon-lane.ts) takes `POST /v1/beacon` before routing, so `app.inject()` never reaches
 * it: these tests listen on a port and fetch. Each compares the lane's answer with the router's and counts
 * what the lane took, so a lane that takes too much, answers differently or stores twice (or not at all) fails.
 */

/** A test app listening on a port, with the front door it answers through. */
export type Served = { t: TestApp; door: FrontDoor; base: string };

/** The FrontDoor is caught as buildApp adds its first lane: it is the spy's `this`. */
export async function serve(env: Record<string, string> = {}, overrides: Partial<Deps> = {}): Promise<Served> {
  const add = vi.spyOn(FrontDoor.prototype, 'add');
  let door = undefined as FrontDoor | undefined;
  const t = await createTestApp(env, overrides).finally(() => {
    door = add.mock.contexts[0] as FrontDoor | undefined; // mockRestore forgets the calls
    add.mockRestore();
  });
  if (!door) {
    await t.close();
    throw new Error('buildApp added no lane');
  }
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return { t, door, base: `http://127.0.0.1:${port}` };
}

export const origin = 'https://shop.example';
export const JSON_TYPE = { 'content-type': 'application/json' };
/** Small, so an over-limit body is cheap; 101 events of `view` (about 3.3 KB) still fit under it. */
export const BODY_LIMIT = 8192;

/** What came back over the connection, and how many requests the lane took meanwhile (1: this one). */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  byLane: number;
}

export type Body = string | ReadableStream<Uint8Array>;

export async function post(s: Served, headers: Record<string, string>, body: Body, path = '/v1/beacon'): Promise<Answer> {
  // duplex is what fetch needs to send a stream (chunked, with no Content-Length); Node's types lack it.
  const init = { method: 'POST', headers, body, ...(typeof body !== 'string' && { duplex: 'half' }) } as RequestInit;
  const taken = s.door.answered;
  const res = await fetch(`${s.base}${path}`, init);
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: Object.fromEntries(res.headers), body: bytes, byLane: s.door.answered - taken };
}

/** A beacon from a shop's page: a publishable key, an allowed Origin, a JSON body. */
export const fromShop = (key: string, extra: Record<string, string> = {}) => ({ ...bearer(key), origin, ...JSON_TYPE, ...extra });

/** The same request through the router only. */
export const routedOnly = (s: Served, headers: Record<string, string>, body: string, path = '/v1/beacon') =>
  s.t.app.inject({ method: 'POST', url: path, headers, payload: body });

export interface Envelope {
  error: { code: string; message: string; details: unknown; request_id: string };
}
export const json = (a: Answer) => JSON.parse(a.body.toString()) as Envelope;
/** An error envelope but for its request id, which is each request's own. */
export const errorOf = (e: Envelope) => ({ ...e.error, request_id: undefined });

/** Headers that differ by request (the id, checked apart, and the clock) or belong to the connection. */
export const VARYING = new Set(['x-request-id', 'date', 'connection', 'keep-alive', 'transfer-encoding']);
export const stable = (h: Record<string, unknown>) => Object.fromEntries(Object.entries(h).filter(([name]) => !VARYING.has(name)).map(([k, v]) => [k, String(v)]));

export const view = (product = 'prod_lane') => ({ type: 'view', product_id: product });
export const events = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    i % 3 === 0
      ? view(`prod_${i % 4}`)
      : i % 3 === 1
        ? { type: 'ar_enter', product_id: 'prod_ar', viewer_id: `v${i}` }
        : { type: 'ar_session_ended', product_id: 'prod_ar', duration_ms: 1000 * i },
  );
export const beaconOf = (list: object[]) => JSON.stringify({ events: list });

export type Totals = Record<(typeof BEACON_TYPES)[number], number>;
export async function totals(s: Served, org: BootstrapResult): Promise<Totals> {
  const res = await s.t.app.inject({ method: 'GET', url: '/v1/usage', headers: bearer(org.secret_key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().totals as Totals;
}
export const countsOf = (list: { type: string }[]): Totals =>
  Object.fromEntries(BEACON_TYPES.map((t) => [t, list.filter((e) => e.type === t).length])) as Totals;

/**
 * A beacon through the router, so the key is in the 5 s cache and the next request can be the lane's. Its
 * event (one view of `prod_warm`) is counted like any other.
 */
export async function warm(s: Served, key: string): Promise<void> {
  const res = await routedOnly(s, fromShop(key), beaconOf([view('prod_warm')]));
  expect(res.statusCode, res.body).toBe(202);
}
