import type { Arm } from '../analytics/index.js';

export type ArmWeights = Record<Arm, number>;

export interface ExperimentRecord {
  id: string;
  orgId: string;
  name: string;
  status: 'running' | 'stopped';
  arms: ArmWeights;
  /** null: every product of the organization */
  productIds: string[] | null;
  createdAt: string;
  updatedAt: string;
  stoppedAt: string | null;
}

export interface Interval {
  lower: number;
  upper: number;
}

export interface ArmResult {
  arm: Arm;
  weight: number;
  viewers: number;
  converters: number;
  /** converters / viewers; null with no viewers */
  conversionRate: number | null;
  interval: Interval | null;
  value: number;
}

export interface ExperimentResults {
  experimentId: string;
  status: 'running' | 'stopped';
  computedAt: string;
  arms: ArmResult[];
  /** relative lift of 3d over poster: rate(3d) / rate(poster) − 1, with its 95% interval; null until both arms converted */
  lift: ({ estimate: number } & Interval) | null;
  /** two-sided, two-proportion z-test (pooled); null until both arms have viewers and the pooled rate is strictly between 0 and 1 */
  pValue: number | null;
  /** only when the lift's interval excludes 0 */
  verdict: '3d_better' | 'poster_better' | null;
}
