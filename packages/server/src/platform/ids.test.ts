import { describe, expect, it } from 'vitest';
import { newId } from './ids.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const decodeTime = (id: string) => [...id.split('_')[1].slice(0, 10)].reduce((t, c) => t * 32 + ALPHABET.indexOf(c), 0);

describe('newId', () => {
  it('is the prefix, 10 chars of time and 16 of randomness, in Crockford base32', () => {
    const id = newId('evt', Date.UTC(2026, 0, 2, 3, 4, 5, 6));
    expect(id).toMatch(/^evt_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(decodeTime(id)).toBe(Date.UTC(2026, 0, 2, 3, 4, 5, 6));
    expect(id.slice(4, 14)).toBe(Date.UTC(2026, 0, 2, 3, 4, 5, 6).toString(32).padStart(10, '0').replace(/[a-v]/g, (c) => ALPHABET[parseInt(c, 32)]));
  });

  it('sorts in creation order, within one millisecond and across milliseconds', () => {
    const base = Date.UTC(2027, 5, 1);
    const ids: string[] = [];
    for (let ms = 0; ms < 5; ms++) for (let i = 0; i < 2_000; i++) ids.push(newId('evt', base + ms));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('within one millisecond, each id is the previous random part plus one', () => {
    const at = Date.UTC(2028, 1, 1);
    const a = newId('evt', at).slice(-16);
    const b = newId('evt', at).slice(-16);
    const value = (s: string) => [...s].reduce((n, c) => n * 32n + BigInt(ALPHABET.indexOf(c)), 0n);
    expect(value(b) - value(a)).toBe(1n);
  });

  it('a clock that steps back keeps the order of what was already made', () => {
    const at = Date.UTC(2029, 1, 1);
    const first = newId('job', at);
    const second = newId('job', at - 1000);
    expect(second > first).toBe(true);
  });

  it('draws fresh randomness each new millisecond', () => {
    const tails = new Set<string>();
    for (let ms = 0; ms < 500; ms++) tails.add(newId('org', Date.UTC(2030, 0, 1) + ms).slice(-16));
    expect(tails.size).toBe(500);
  });
});
