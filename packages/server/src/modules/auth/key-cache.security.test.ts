import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.js';
import { Authenticator } from './auth.service.js';

/**
 * Resolved keys are cached for 5 s. A publishable key is public, so it is cached under itself (no hash on the
 * storefront's hot path); a secret key is cached under its SHA-256 only, so no raw secret lives on in memory.
 */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(async () => t?.close());

const cachedUnder = (auth: Authenticator) => [...(auth as unknown as { cache: Map<string, unknown> }).cache.keys()];

describe('the resolved-key cache', () => {
  it('keeps a secret key under its hash only, and a publishable key under itself', async () => {
    const auth = new Authenticator(t.deps);
    const secret = await auth.fromApiKey(t.org.secret_key);
    const publishable = await auth.fromApiKey(t.org.publishable_key);
    expect(secret?.kind).toBe('secret_key');
    expect(publishable?.kind).toBe('publishable_key');
    const keys = cachedUnder(auth);
    expect(keys).toHaveLength(2);
    expect(keys.some((k) => k.includes(t.org.secret_key))).toBe(false);
    expect(keys).toContain(t.org.publishable_key);
  });

  it('answers a cached key synchronously, and nothing for one it has not resolved', async () => {
    const auth = new Authenticator(t.deps);
    expect(auth.cachedApiKey(t.org.publishable_key)).toBeUndefined();
    const resolved = await auth.fromApiKey(t.org.publishable_key);
    expect(auth.cachedApiKey(t.org.publishable_key)).toBe(resolved);
    expect(await auth.fromApiKey(t.org.secret_key)).not.toBeNull();
    expect(auth.cachedApiKey(t.org.secret_key)?.kind).toBe('secret_key');
    auth.invalidate();
    expect(auth.cachedApiKey(t.org.publishable_key)).toBeUndefined();
  });

  it('caches an unknown key as refused', async () => {
    const auth = new Authenticator(t.deps);
    const unknown = `pk_${'x'.repeat(32)}`;
    expect(await auth.fromApiKey(unknown)).toBeNull();
    expect(auth.cachedApiKey(unknown)).toBeNull();
  });
});
