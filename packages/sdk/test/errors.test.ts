import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../server/src/platform/storage/index.js';
import { productPhoto } from '../../server/src/test/images.js';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  Plinth,
  PlinthError,
  QuotaExceededError,
  RateLimitError,
  UnprocessableEntityError,
} from '../src/index.js';
import { PUBLIC_URL, contract, recordingFetch, servedOpenAPI, startApi, startStub, type Api, type Recorded } from './harness.js';

let api: Api;
let check: ReturnType<typeof contract>;
beforeAll(async () => {
  api = await startApi();
  check = contract(await servedOpenAPI(api.base));
});
afterAll(() => api?.close());

/** The error a call throws, checked to be the API's envelope as the OpenAPI document describes it. */
async function failure(call: Promise<unknown>): Promise<PlinthError> {
  const err = await call.then(
    () => expect.fail('expected the call to fail'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlinthError);
  const e = err as PlinthError;
  if (e.status !== undefined) {
    expect(e.requestId).toMatch(/^req_/);
    check('GET /v1/products', e.status >= 500 ? '5XX' : '4XX', { error: { code: e.code, message: e.message, details: e.details, request_id: e.requestId } });
  }
  return e;
}

describe('every error class comes from a real answer of the API', () => {
  it('401 AuthenticationError for an unknown key', async () => {
    const e = await failure(api.client({ apiKey: 'sk_not_a_real_key' }).products.list());
    expect(e).toBeInstanceOf(AuthenticationError);
    expect([e.status, e.code, e.name]).toEqual([401, 'unauthenticated', 'AuthenticationError']);
  });

  it('402 PaymentRequiredError when the organization has no plan', async () => {
    const noPlan = await api.t.bootstrap({ plan: 'none' });
    const e = await failure(api.client({ apiKey: noPlan.secret_key }).products.quote({ image_urls: [PUBLIC_URL('/a.jpg')] }));
    expect(e).toBeInstanceOf(PaymentRequiredError);
    expect([e.status, e.code, e.details?.reason]).toEqual([402, 'plan_required', 'no_plan']);
  });

  it('403 PermissionDeniedError for a key without the scope', async () => {
    const readOnly = await api.client().apiKeys.create({ scopes: ['products:read'] });
    const e = await failure(api.client({ apiKey: readOnly.key }).products.quote({ image_urls: [PUBLIC_URL('/a.jpg')] }));
    expect(e).toBeInstanceOf(PermissionDeniedError);
    expect([e.status, e.code, e.details?.reason]).toEqual([403, 'forbidden', 'scope']);
  });

  it('404 NotFoundError for an unknown product', async () => {
    const e = await failure(api.client().products.retrieve('prod_does_not_exist'));
    expect(e).toBeInstanceOf(NotFoundError);
    expect([e.status, e.code]).toEqual([404, 'not_found']);
  });

  it('409 ConflictError for a duplicate custom_id', async () => {
    const client = api.client();
    await client.products.create({ model_url: PUBLIC_URL('/m.glb'), custom_id: 'sku-1' });
    const e = await failure(client.products.create({ model_url: PUBLIC_URL('/m.glb'), custom_id: 'sku-1' }));
    expect(e).toBeInstanceOf(ConflictError);
    expect([e.status, e.code]).toEqual([409, 'conflict']);
  });

  it('400 BadRequestError when a commit changes the quote', async () => {
    const client = api.client();
    const quote = await client.products.quote({ image_urls: [PUBLIC_URL('/a.jpg')], title: 'Chair' });
    const e = await failure(client.products.commit(quote, { title: 'Table' }));
    expect(e).toBeInstanceOf(BadRequestError);
    expect([e.status, e.code]).toEqual([400, 'quote_changed']);
  });

  it('422 UnprocessableEntityError with the per-field errors', async () => {
    const e = await failure(api.client().products.list({ limit: 1000 }));
    expect(e).toBeInstanceOf(UnprocessableEntityError);
    expect(e.code).toBe('validation_failed');
    expect(e.details?.errors).toEqual([expect.objectContaining({ path: 'query.limit' })]);
  });

  it('429 QuotaExceededError with the shortfall; never retried', async () => {
    const broke = await api.t.bootstrap({ credits: 0 });
    const log: Recorded[] = [];
    const client = api.client({ apiKey: broke.secret_key, maxRetries: 3, fetch: recordingFetch(log) });
    const e = await failure(client.products.quote({ image_urls: [PUBLIC_URL('/a.jpg')] }));
    expect(e).toBeInstanceOf(QuotaExceededError);
    expect(e).not.toBeInstanceOf(RateLimitError);
    expect([e.status, e.code]).toEqual([429, 'quota_exceeded']);
    expect((e as QuotaExceededError).shortfallCredits).toBeGreaterThan(0);
    expect((e as QuotaExceededError).shortfallCredits).toBe(e.details?.shortfall_credits);
    expect(log).toHaveLength(1);
  });

  it('429 RateLimitError once the burst is spent; a Retry-After beyond a minute is not waited out', async () => {
    const limited = await startApi({ PLINTH_RATE_LIMITS: 'on', PLINTH_RATE_LIMIT_API_BURST: '2', PLINTH_RATE_LIMIT_API_PER_SECOND: '0.01' });
    try {
      const client = limited.client({ maxRetries: 0 });
      await client.products.list();
      await client.products.list();
      const e = await failure(client.products.list());
      expect(e).toBeInstanceOf(RateLimitError);
      expect([e.status, e.code]).toEqual([429, 'rate_limited']);
      expect((e as RateLimitError).retryAfter).toBeGreaterThanOrEqual(60);

      const started = Date.now();
      const patient = limited.client({ maxRetries: 5 });
      expect(await failure(patient.products.list())).toBeInstanceOf(RateLimitError);
      expect(Date.now() - started).toBeLessThan(10_000); // far below the 100 s the API asked for
    } finally {
      await limited.close();
    }
  });

  it('500 InternalServerError from a server whose storage throws; nothing internal leaks', async () => {
    const broken = new Proxy({ kind: 'disk' } as BlobStore, {
      // URLs are made, not fetched, so they still work; every read and write of a file fails.
      get: (target, prop) =>
        prop === 'kind'
          ? target.kind
          : prop === 'publicUrl' || prop === 'privateUrl'
            ? (key: string) => `http://127.0.0.1:1/files/${key}`
            : async () => Promise.reject(new Error('disk on fire at /var/secret')),
    });
    const failing = await startApi({}, { storage: broken });
    try {
      const photo = new Uint8Array(await productPhoto(64, 48));
      const e = await failure(failing.client({ maxRetries: 0 }).uploads.create(photo, { contentType: 'image/jpeg' }));
      expect(e).toBeInstanceOf(InternalServerError);
      expect([e.status, e.code]).toEqual([500, 'internal_error']);
      expect(e.message).not.toContain('fire');
    } finally {
      await failing.close();
    }
  });
});

describe('requests that never reach the API have no status', () => {
  it('APIConnectionError for a closed port', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const client = new Plinth({ apiKey: 'sk_x', baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const e = await failure(client.health.retrieve());
    expect(e).toBeInstanceOf(APIConnectionError);
    expect(e).not.toBeInstanceOf(APIConnectionTimeoutError);
    expect([e.status, e.code, e.requestId]).toEqual([undefined, 'connection_error', null]);
  });

  it('APIConnectionTimeoutError for a server that never answers', async () => {
    const hang = await startStub(() => {});
    try {
      const client = new Plinth({ apiKey: 'sk_x', baseURL: hang.base, maxRetries: 1, timeout: 150 });
      const e = await failure(client.health.retrieve());
      expect(e).toBeInstanceOf(APIConnectionTimeoutError);
      expect(e).toBeInstanceOf(APIConnectionError);
      expect([e.status, e.code]).toEqual([undefined, 'connection_timeout']);
      expect(hang.requests).toHaveLength(2);
    } finally {
      await hang.close();
    }
  });
});
