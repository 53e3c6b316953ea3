import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, isRetryable, retryDelay } from '../src/core/retries.js';
import { APIUserAbortError, ConflictError, InternalServerError, NotFoundError, Plinth, RateLimitError, type Fetch } from '../src/index.js';
import { PUBLIC_URL, json, recordingFetch, startApi, startStub, type Api, type Recorded } from './harness.js';

const health = { status: 'ok', version: 'stub', checks: {} };
const envelope = (code: string, details: object | null = null) => ({ error: { code, message: code, details, request_id: 'req_stub' } });

describe('retries against a scripted server', () => {
  it('503 twice then 200: retried with backoff, and succeeds', async () => {
    const stub = await startStub((n, _req, res) => (n <= 2 ? json(res, 503, envelope('service_unavailable')) : json(res, 200, health)));
    try {
      const started = Date.now();
      const answer = await new Plinth({ apiKey: 'sk_x', baseURL: stub.base }).health.retrieve();
      expect(answer).toEqual(health);
      expect(stub.requests).toHaveLength(3);
      // Two backoffs of at least 250 ms and 500 ms (half of 0.5 s and 1 s, the jitter's floor).
      expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    } finally {
      await stub.close();
    }
  });

  it('gives up after maxRetries and throws the last answer', async () => {
    const stub = await startStub((_n, _req, res) => json(res, 500, envelope('internal_error'), { 'retry-after': '0' }));
    try {
      const err = await new Plinth({ apiKey: 'sk_x', baseURL: stub.base, maxRetries: 3 }).health.retrieve().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InternalServerError);
      expect(stub.requests).toHaveLength(4);
    } finally {
      await stub.close();
    }
  });

  it('honours Retry-After on 429 rate_limited, and 408; sends one Idempotency-Key across the retries of a POST', async () => {
    const stub = await startStub((n, _req, res) => {
      if (n === 1) return json(res, 429, envelope('rate_limited'), { 'retry-after': '1' });
      if (n === 2) return json(res, 408, envelope('request_timeout'), { 'retry-after': '0' });
      json(res, 202, { object: 'beacon_receipt', accepted: 1, clamped: 0 });
    });
    try {
      const started = Date.now();
      const receipt = await new Plinth({ apiKey: 'sk_x', baseURL: stub.base }).beacon.send({ events: [{ type: 'view', product_id: 'prod_1' }] });
      expect(receipt.accepted).toBe(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      const keys = stub.requests.map((r) => r.headers['idempotency-key']);
      expect(keys).toHaveLength(3);
      expect(new Set(keys).size).toBe(1);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await stub.close();
    }
  });

  it("a caller's own Idempotency-Key replaces the generated one (option or header, any case)", async () => {
    const stub = await startStub((_n, _req, res) => json(res, 202, { object: 'beacon_receipt', accepted: 1, clamped: 0 }));
    try {
      const client = new Plinth({ apiKey: 'sk_x', baseURL: stub.base });
      const events = [{ type: 'view' as const, product_id: 'prod_1' }];
      await client.beacon.send({ events }, { idempotencyKey: 'job-7' });
      await client.beacon.send({ events }, { headers: { 'idempotency-key': 'job-8' } });
      expect(stub.requests.map((r) => r.headers['idempotency-key'])).toEqual(['job-7', 'job-8']);
    } finally {
      await stub.close();
    }
  });

  it('does not retry other 4xx, nor quota_exceeded', async () => {
    for (const [status, code] of [[404, 'not_found'], [409, 'conflict'], [429, 'quota_exceeded']] as const) {
      const stub = await startStub((_n, _req, res) => json(res, status, envelope(code, { shortfall_credits: 5 })));
      try {
        await new Plinth({ apiKey: 'sk_x', baseURL: stub.base, maxRetries: 3 }).products.retrieve('prod_1').catch(() => {});
        expect(stub.requests, `${status} ${code}`).toHaveLength(1);
      } finally {
        await stub.close();
      }
    }
  });

  it('a caller abort stops the wait between retries', async () => {
    const stub = await startStub((_n, _req, res) => json(res, 503, envelope('service_unavailable'), { 'retry-after': '30' }));
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const err = await new Plinth({ apiKey: 'sk_x', baseURL: stub.base }).health.retrieve({ signal: controller.signal }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(APIUserAbortError);
      expect(stub.requests).toHaveLength(1);
    } finally {
      await stub.close();
    }
  });
});

describe('retry policy', () => {
  const err = (status: number, code: string, headers: Record<string, string> = {}, details: object | null = null) =>
    new (status === 429 ? RateLimitError : status === 409 ? ConflictError : status >= 500 ? InternalServerError : NotFoundError)(code, {
      status,
      code,
      details: details as never,
      headers: new Headers(headers),
    });

  it('backs off exponentially with jitter, capped; honours Retry-After up to a minute', () => {
    expect(retryDelay(0, err(503, 'x'), () => 0)).toBe(250);
    expect(retryDelay(0, err(503, 'x'), () => 1)).toBe(500);
    expect(retryDelay(3, err(503, 'x'), () => 0)).toBe(2_000);
    expect(retryDelay(10, err(503, 'x'), () => 1)).toBe(8_000);
    expect(retryDelay(0, err(429, 'rate_limited', { 'retry-after': '2' }))).toBe(2_000);
    expect(retryDelay(0, err(429, 'rate_limited', { 'retry-after': String(MAX_RETRY_AFTER_MS / 1000 + 1) }))).toBeNull();
    // A browser may not see the header on a cross-origin answer; the envelope's details carry the same wait.
    expect(retryDelay(0, err(429, 'rate_limited', {}, { retry_after_seconds: 3 }))).toBe(3_000);
    const date = new Date(Date.now() + 3_000).toUTCString();
    expect(retryDelay(0, err(503, 'x', { 'retry-after': date }))).toBeGreaterThan(1_000);
  });

  it('retries a 409 only while the first request with the same Idempotency-Key is still running', () => {
    expect(isRetryable(err(409, 'conflict', {}, { reason: 'idempotency_in_progress' }))).toBe(true);
    expect(isRetryable(err(409, 'conflict', {}, { reason: 'resume_token_used' }))).toBe(false);
  });
});

describe('a retried create makes one product (Idempotency-Key against the real server)', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api?.close());

  it('the first answer is lost after the server acted; the retry replays it', async () => {
    const log: Recorded[] = [];
    let dropped = false;
    // The server handles the request and answers; the client never sees it, as on a dropped connection.
    const lossy: Fetch = async (url, init) => {
      const response = await fetch(url, init);
      if (init.method === 'POST' && !dropped) {
        dropped = true;
        await response.arrayBuffer();
        throw new TypeError('fetch failed: socket hang up');
      }
      return response;
    };
    const replayed: (string | null)[] = [];
    const client = api.client({
      fetch: recordingFetch(log, async (url, init) => {
        const r = await lossy(url, init);
        replayed.push(r.headers.get('idempotent-replayed'));
        return r;
      }),
    });
    const product = await client.products.create({ model_url: PUBLIC_URL('/once.glb'), title: 'Exactly once' });
    if (product.object !== 'product') expect.fail(`expected a product, got a ${product.object}`);
    const posts = log.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0].headers.get('idempotency-key')).toBe(posts[1].headers.get('idempotency-key'));
    expect(replayed).toEqual(['true']);

    const all = await client.products.list({ q: 'Exactly once' });
    expect(all.total).toBe(1);
    expect(all.data[0].id).toBe(product.id);
  });
});
