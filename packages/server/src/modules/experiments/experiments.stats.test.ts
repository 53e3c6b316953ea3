import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { normalCdf, relativeLift, twoProportionPValue, wilsonInterval, Z95 } from './experiments.stats.js';

/** jStat, the reference: a long-kept statistics library, loaded as CommonJS (it ships no types). */
const { jStat } = createRequire(import.meta.url)('jstat') as {
  jStat: {
    normal: { cdf(x: number, mean: number, sd: number): number; inv(p: number, mean: number, sd: number): number };
    ztest(z: number, sides: 1 | 2): number;
  };
};

const TOLERANCE = 1e-6;

/**
 * The Wilson interval by its definition, not its formula: the proportions p the score test (z from jStat's
 * normal) does not reject at 5%, found by bisection on each side of the observed rate.
 */
function wilsonByTestInversion(x: number, n: number): { lower: number; upper: number } {
  const observed = x / n;
  const rejects = (p: number) => {
    const z = Math.abs(observed - p) / Math.sqrt((p * (1 - p)) / n);
    return 2 * (1 - jStat.normal.cdf(z, 0, 1)) < 0.05;
  };
  const bisect = (inside: number, outside: number) => {
    for (let i = 0; i < 200; i++) {
      const mid = (inside + outside) / 2;
      if (rejects(mid)) outside = mid;
      else inside = mid;
    }
    return (inside + outside) / 2;
  };
  return { lower: x === 0 ? 0 : bisect(observed, 0), upper: x === n ? 1 : bisect(observed, 1) };
}

/** A synthetic experiment with a known lift: 3d converts 6.0% of 5,000 viewers, poster 5.0% of 5,000: lift +20%. */
const THREE_D = { viewers: 5000, converters: 300 };
const POSTER = { viewers: 5000, converters: 250 };

describe('experiment statistics against jStat', () => {
  it('z of a 95% interval and the normal distribution', () => {
    expect(Math.abs(Z95 - jStat.normal.inv(0.975, 0, 1))).toBeLessThan(1e-12);
    for (const z of [-7, -3.2, -1.96, -0.5, 0, 0.3, 1, 1.6448536, 2.5, 4, 6.5, 9]) {
      expect(Math.abs(normalCdf(z) - jStat.normal.cdf(z, 0, 1)), `z=${z}`).toBeLessThan(1e-12);
    }
  });

  it('Wilson intervals match the inverted score test', () => {
    for (const [x, n] of [[THREE_D.converters, THREE_D.viewers], [POSTER.converters, POSTER.viewers], [0, 40], [3, 40], [40, 40], [1, 1], [17, 23]] as const) {
      const ours = wilsonInterval(x, n)!;
      const ref = wilsonByTestInversion(x, n);
      expect(Math.abs(ours.lower - ref.lower), `${x}/${n} lower`).toBeLessThan(TOLERANCE);
      expect(Math.abs(ours.upper - ref.upper), `${x}/${n} upper`).toBeLessThan(TOLERANCE);
    }
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it('the lift, its interval and the p-value of the known-lift experiment', () => {
    const lift = relativeLift(THREE_D.converters, THREE_D.viewers, POSTER.converters, POSTER.viewers)!;
    expect(Math.abs(lift.estimate - 0.2)).toBeLessThan(1e-12);

    // Reference: the log risk ratio is normal with the delta method's SE; its 2.5% and 97.5% quantiles from jStat.
    const p1 = THREE_D.converters / THREE_D.viewers;
    const p2 = POSTER.converters / POSTER.viewers;
    const se = Math.sqrt((1 - p1) / THREE_D.converters + (1 - p2) / POSTER.converters);
    const lower = Math.exp(jStat.normal.inv(0.025, Math.log(p1 / p2), se)) - 1;
    const upper = Math.exp(jStat.normal.inv(0.975, Math.log(p1 / p2), se)) - 1;
    expect(Math.abs(lift.lower - lower)).toBeLessThan(TOLERANCE);
    expect(Math.abs(lift.upper - upper)).toBeLessThan(TOLERANCE);

    // Reference: jStat's two-sided z-test of the pooled two-proportion statistic.
    const pooled = (THREE_D.converters + POSTER.converters) / (THREE_D.viewers + POSTER.viewers);
    const z = (p1 - p2) / Math.sqrt(pooled * (1 - pooled) * (1 / THREE_D.viewers + 1 / POSTER.viewers));
    const test = twoProportionPValue(THREE_D.converters, THREE_D.viewers, POSTER.converters, POSTER.viewers)!;
    expect(Math.abs(test.z - z)).toBeLessThan(TOLERANCE);
    expect(Math.abs(test.pValue - jStat.ztest(z, 2))).toBeLessThan(TOLERANCE);
    // The numbers themselves: +20% [+1.9%, +41.3%], p ≈ 0.028, so this one has a verdict.
    expect(lift.lower).toBeCloseTo(0.0193, 4);
    expect(lift.upper).toBeCloseTo(0.4127, 4);
    expect(test.pValue).toBeCloseTo(0.0283, 4);
  });

  it('undefined cases are null, not NaN', () => {
    expect(relativeLift(0, 100, 5, 100)).toBeNull();
    expect(twoProportionPValue(0, 100, 0, 100)).toBeNull();
    expect(twoProportionPValue(3, 0, 5, 100)).toBeNull();
  });
});
