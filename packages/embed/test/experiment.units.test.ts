import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { armFor } from '../src/features/experiment.js';

const { jStat } = createRequire(import.meta.url)('jstat') as { jStat: { binomial: { cdf(k: number, n: number, p: number): number } } };

/** Two-sided exact binomial test of `k` of `n` against `p`. */
const pValue = (k: number, n: number, p: number) => Math.min(1, 2 * Math.min(jStat.binomial.cdf(k, n, p), 1 - jStat.binomial.cdf(k - 1, n, p)));

describe('armFor', () => {
  it('is fair over many experiments: the 3d count of 200 viewers fails a binomial test about as often as chance says', () => {
    // The browser test splits the viewers v_sim_0..199 in one experiment with a random id, so its count is a draw.
    // Over 2,000 experiments the share of draws below each level must match the level: a biased or lumpy hash
    // would fail far more often than 1 % at 0.01.
    const experiments = 2_000;
    const ps: number[] = [];
    let threeD = 0;
    for (let e = 0; e < experiments; e++) {
      const experiment = { id: `exp_${randomUUID().replaceAll('-', '')}`, arms: { '3d': 0.5, poster: 0.5 } };
      let k = 0;
      for (let i = 0; i < 200; i++) if (armFor(`v_sim_${i}`, experiment) === '3d') k++;
      threeD += k;
      ps.push(pValue(k, 200, 0.5));
    }
    // Overall share: 400,000 draws, so 0.5 within ±0.005 is over six standard deviations.
    expect(Math.abs(threeD / (experiments * 200) - 0.5)).toBeLessThan(0.005);
    // Expected 20 of 2,000 below 0.01 (the discrete test is conservative: fewer); 45 is far past chance.
    expect(ps.filter((p) => p <= 0.01).length).toBeLessThan(45);
    expect(ps.filter((p) => p <= 0.05).length).toBeLessThan(140);
  });

  it('follows the 3d share, and keeps one viewer in one arm', () => {
    const experiment = { id: 'exp_fixed', arms: { '3d': 0.2, poster: 0.8 } };
    const arms = Array.from({ length: 20_000 }, (_, i) => armFor(`viewer_${i}`, experiment));
    const k = arms.filter((a) => a === '3d').length;
    expect(pValue(k, 20_000, 0.2)).toBeGreaterThan(0.0001);
    expect(arms.slice(0, 100)).toEqual(Array.from({ length: 100 }, (_, i) => armFor(`viewer_${i}`, experiment)));
  });
});
