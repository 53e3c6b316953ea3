import { describe, expect, it } from 'vitest';
import { browserAssetKey, isBrowserAssetKey, orgOfKey, privateProductKey, randomName, uploadKey } from './names.js';
import { newId } from '../ids.js';

const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
};
const commonSuffix = (a: string, b: string) => commonPrefix([...a].reverse().join(''), [...b].reverse().join(''));
const hamming = (a: string, b: string) => [...a].filter((c, i) => c !== b[i]).length;

describe('file names', () => {
  it('names made back to back (same millisecond) share no time prefix, no counter suffix, and differ almost everywhere', () => {
    const names = Array.from({ length: 2000 }, () => randomName());
    expect(new Set(names).size).toBe(names.length);
    for (let i = 1; i < names.length; i++) {
      const [a, b] = [names[i - 1], names[i]];
      expect(a).toMatch(/^[0-9a-z]{32}$/);
      // 32 uniform base32 characters: runs of 6 equal leading/trailing characters would be a 1-in-a-billion event
      expect(commonPrefix(a, b)).toBeLessThan(6);
      expect(commonSuffix(a, b)).toBeLessThan(6);
      expect(hamming(a, b)).toBeGreaterThan(16);
    }
    // every character position is used roughly uniformly (no fixed or slowly changing segment)
    for (let pos = 0; pos < 31; pos++) {
      expect(new Set(names.map((n) => n[pos])).size).toBeGreaterThan(24);
    }
  });

  it('record ids of the same millisecond are sequential, which is exactly why files do not use them', () => {
    const now = Date.now();
    const [a, b] = [newId('img', now), newId('img', now)];
    expect(commonPrefix(a, b)).toBeGreaterThan(20);
  });

  it('browser assets and private keys are told apart by shape: an allow-list', () => {
    const product = { orgId: 'org_01abc', id: 'prod_01def' };
    const thumb = browserAssetKey(product, '.thumb.webp');
    expect(thumb).toMatch(/^orgs\/org_01abc\/products\/prod_01def\/pub\/[0-9a-z]{32}\.thumb\.webp$/);
    expect(isBrowserAssetKey(thumb)).toBe(true);
    expect(isBrowserAssetKey(browserAssetKey(product, '.glb'))).toBe(true);
    expect(isBrowserAssetKey(privateProductKey(product, 'originals', '.jpg'))).toBe(false);
    expect(isBrowserAssetKey(uploadKey('org_01abc', '.png').key)).toBe(false);
    // names of the earlier layout (guessable ids) are not served
    expect(isBrowserAssetKey('orgs/org_1/products/prod_1/images/img_01hx.thumb.webp')).toBe(false);
    expect(isBrowserAssetKey('orgs/org_1/products/prod_1/model/01hx.glb')).toBe(false);
    // tricks: traversal, extra segments, short names, upper case
    expect(isBrowserAssetKey(`orgs/org_1/products/prod_1/pub/../uploads/${randomName()}.png`)).toBe(false);
    expect(isBrowserAssetKey(`orgs/org_1/uploads/x/pub/${randomName()}.png`)).toBe(false);
    expect(isBrowserAssetKey('orgs/org_1/products/prod_1/pub/abc.png')).toBe(false);
    expect(isBrowserAssetKey(`orgs/org_1/products/prod_1/pub/${randomName().toUpperCase()}.png`)).toBe(false);
    expect(() => browserAssetKey(product, '/../x')).toThrow();
  });

  it('the organization of a key comes from its prefix', () => {
    expect(orgOfKey(uploadKey('org_7', '.png').key)).toBe('org_7');
    expect(orgOfKey('uploads/x.png')).toBeNull();
  });
});
