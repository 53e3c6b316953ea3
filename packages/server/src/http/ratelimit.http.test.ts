import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../test/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ PLINTH_RATE_LIMITS: 'on', PLINTH_RATE_LIMIT_API_BURST: '5', PLINTH_RATE_LIMIT_API_PER_SECOND: '0.5' });
});
afterAll(async () => t?.close());

describe('rate limits', () => {
  it('spends one token per request and answers 429 rate_limited with Retry-After and RateLimit headers', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 7; i++) {
      last = await t.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(t.org.secret_key) });
      statuses.push(last.statusCode);
      if (i === 0) {
        expect(last.headers['ratelimit-limit']).toBe('5');
        expect(last.headers['ratelimit-remaining']).toBe('4');
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(last!.json().error.code).toBe('rate_limited');
    expect(Number(last!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(last!.headers['ratelimit-remaining']).toBe('0');
    expect(Number(last!.headers['ratelimit-reset'])).toBeGreaterThan(0);
  });

  it('buckets are per key: another key is not limited by the first', async () => {
    const other = await t.bootstrap();
    const res = await t.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(other.secret_key) });
    expect(res.statusCode).toBe(200);
  });

  it('PLINTH_RATE_LIMITS=off switches limits off', async () => {
    const off = await createTestApp({ PLINTH_RATE_LIMITS: 'off', PLINTH_RATE_LIMIT_API_BURST: '1' });
    const statuses = await Promise.all(
      Array.from({ length: 5 }, () => off.app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(off.org.secret_key) }).then((r) => r.statusCode)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    await off.close();
  });
});
