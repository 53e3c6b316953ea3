import { describe, expect, it } from 'vitest';
import { modelWarnings, UNUSUAL_SIZE } from './model-stats.js';

describe('modelWarnings', () => {
  it('says nothing about products between 1 cm and 10 m, whatever their shape', () => {
    expect(modelWarnings({ width: 0.4, height: 0.3, depth: 0.2 })).toEqual([]);
    expect(modelWarnings({ width: 0.012, height: 0.02, depth: 0.003 })).toEqual([]); // a ring
    expect(modelWarnings({ width: 9.9, height: 0.001, depth: 2 })).toEqual([]);
    expect(modelWarnings({ width: UNUSUAL_SIZE.maxMetres, height: 1, depth: 1 })).toEqual([]);
  });

  it('flags a largest side over 10 m or under 1 cm, in words a reviewer can act on', () => {
    const [big] = modelWarnings({ width: 20, height: 100, depth: 15 });
    expect(big.code).toBe('unusual_size');
    expect(big.message).toMatch(/^The model is 100 m across at its largest\. Few products are larger than 10 m/);
    expect(big.message).toMatch(/Rescale/);
    const [small] = modelWarnings({ width: 0.002, height: 0.0015, depth: 0.001 });
    expect(small.code).toBe('unusual_size');
    expect(small.message).toMatch(/^The model is 2 mm across at its largest\. Few products are smaller than 1 cm/);
  });
});
