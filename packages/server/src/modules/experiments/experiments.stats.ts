import type { Interval } from './experiments.types.js';

/** The standard normal's 97.5th percentile: the z of a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

/**
 * erf(x) for x ≥ 0 by the series erf(x) = 2/√π · e^(−x²) · Σ (2x²)ⁿ·x / (1·3·…·(2n+1)), whose terms are all
 * positive, so nothing cancels and the sum keeps double precision. Past x = 6, 1 − erf(x) < 3e−17: 1.
 */
function erfPositive(x: number): number {
  if (x > 6) return 1;
  const twoX2 = 2 * x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 500 && term > sum * 1e-17; n++) {
    term *= twoX2 / (2 * n + 1);
    sum += term;
  }
  return Math.min(1, (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum);
}

/** P(Z ≤ z) for the standard normal. */
export function normalCdf(z: number): number {
  const e = erfPositive(Math.abs(z) / Math.SQRT2);
  return z >= 0 ? 0.5 * (1 + e) : 0.5 * (1 - e);
}

/**
 * The Wilson score interval of a proportion, x successes of n: unlike the normal approximation it stays inside
 * [0, 1] and keeps its coverage for small counts and rates near 0, which conversions are.
 */
export function wilsonInterval(x: number, n: number, z = Z95): Interval | null {
  if (n <= 0) return null;
  const p = x / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { lower: Math.max(0, centre - half), upper: Math.min(1, centre + half) };
}

/**
 * Two-sided p-value of the pooled two-proportion z-test of x1/n1 against x2/n2. Null when the test is undefined
 * (an empty arm, or nobody or everybody converted in both).
 */
export function twoProportionPValue(x1: number, n1: number, x2: number, n2: number): { z: number; pValue: number } | null {
  if (n1 <= 0 || n2 <= 0) return null;
  const pooled = (x1 + x2) / (n1 + n2);
  if (pooled <= 0 || pooled >= 1) return null;
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  const z = (x1 / n1 - x2 / n2) / se;
  return { z, pValue: 2 * (1 - normalCdf(Math.abs(z))) };
}

/**
 * The relative lift r1/r2 − 1 with a 95% interval by the delta method on the log of the risk ratio:
 * SE(ln RR) = √(1/x1 − 1/n1 + 1/x2 − 1/n2), interval exp(ln RR ± z·SE) − 1. Null until both arms have a
 * conversion (the log ratio is undefined at zero).
 */
export function relativeLift(x1: number, n1: number, x2: number, n2: number, z = Z95): ({ estimate: number } & Interval) | null {
  if (x1 <= 0 || x2 <= 0 || n1 <= 0 || n2 <= 0) return null;
  const logRatio = Math.log(x1 / n1) - Math.log(x2 / n2);
  const se = Math.sqrt(1 / x1 - 1 / n1 + 1 / x2 - 1 / n2);
  return { estimate: Math.exp(logRatio) - 1, lower: Math.exp(logRatio - z * se) - 1, upper: Math.exp(logRatio + z * se) - 1 };
}
