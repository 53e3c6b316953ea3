import { sql } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Executor } from '../../db.js';

/**
 * What the steps of a job cost on this installation, measured. A quote's `estimated_seconds` adds
 * them up for the work it prices; until a step has been measured a few times, its cost leans on a
 * prior (the step costs measured on a 2-core machine when the pipeline was written).
 */
export type MeasuredStep = 'fetching' | 'cutting_out' | 'finding_cameras' | 'carving' | 'checking' | 'matching' | 'texturing' | 'storing_model';

/** Per photo for the steps that handle each photo on its own; per job for the ones that build one model. */
export const STEP_UNITS: Record<MeasuredStep, 'view' | 'job'> = {
  fetching: 'job',
  cutting_out: 'view',
  finding_cameras: 'view',
  carving: 'job',
  // The held-out check carves once per left-out view (up to 8) from all the others: it grows with the photos.
  checking: 'view',
  // Stereo makes a depth map per photo against its neighbours, then meshes what they measured.
  matching: 'view',
  texturing: 'job',
  storing_model: 'job',
};

/** Seconds per unit before anything is measured. */
export const PRIOR_COSTS: Readonly<Record<MeasuredStep, number>> = Object.freeze({
  fetching: 1,
  cutting_out: 2,
  finding_cameras: 2.5,
  carving: 8,
  checking: 0.5,
  matching: 0.5,
  texturing: 5,
  storing_model: 1,
});

export type StepCosts = Readonly<Record<MeasuredStep, number>>;

/** Measurements after which the prior no longer counts; it fades out linearly before that. */
export const PRIOR_FADES_AFTER = 3;
/** The mean of the first measurements, then an exponential moving average with this weight for the newest. */
const AVERAGE_WINDOW = 10;

const STEPS = Object.keys(STEP_UNITS) as MeasuredStep[];

/** The costs a quote uses now: each measured step's average, blended with its prior while measurements are few. */
export async function loadStepCosts(db: Executor): Promise<StepCosts> {
  const rows = await db.selectFrom('step_costs').select(['step', 'seconds_per_unit', 'samples']).execute();
  const costs = { ...PRIOR_COSTS };
  for (const row of rows) {
    if (!STEPS.includes(row.step as MeasuredStep)) continue;
    const step = row.step as MeasuredStep;
    const weight = Math.min(1, Number(row.samples) / PRIOR_FADES_AFTER);
    costs[step] = (1 - weight) * PRIOR_COSTS[step] + weight * Number(row.seconds_per_unit);
  }
  return costs;
}

export interface StepDuration {
  step: MeasuredStep;
  seconds: number;
}

/**
 * Adds one job's step durations to the averages, per unit of work (`views` photos). One statement per
 * step, computed in the database, so two workers finishing at once both count; `db` may be the
 * transaction that finishes the job.
 */
export async function recordStepDurations(db: Executor, durations: readonly StepDuration[], views: number, at: string): Promise<void> {
  // In one order, so two transactions recording at once take the rows' locks alike and never deadlock.
  const ordered = [...durations].sort((a, b) => a.step.localeCompare(b.step));
  for (const { step, seconds } of ordered) {
    const units = STEP_UNITS[step] === 'view' ? views : 1;
    if (!(units > 0) || !(seconds >= 0)) continue;
    const perUnit = seconds / units;
    await db
      .insertInto('step_costs')
      .values({ step, seconds_per_unit: perUnit, samples: 1, updated_at: at })
      .onConflict((oc) =>
        oc.column('step').doUpdateSet({
          seconds_per_unit: sql<number>`step_costs.seconds_per_unit + (excluded.seconds_per_unit - step_costs.seconds_per_unit) / (CASE WHEN step_costs.samples + 1 < ${sql.lit(AVERAGE_WINDOW)} THEN step_costs.samples + 1 ELSE ${sql.lit(AVERAGE_WINDOW)} END)`,
          samples: sql<number>`step_costs.samples + 1`,
          updated_at: at,
        }),
      )
      .execute();
  }
}

/**
 * Which measured step each step name a job reports belongs to; names not listed (a hosted generator's
 * `queued`, the final `done`) are not timed. The generator's own names are finer than the measured ones.
 */
const MEASURED_AS: Record<string, MeasuredStep> = {
  fetching: 'fetching',
  preparing_views: 'fetching',
  cutting_out: 'cutting_out',
  finding_cameras: 'finding_cameras',
  calibrating: 'carving',
  carving: 'carving',
  building_card: 'carving',
  extracting_surface: 'carving',
  // Stereo beyond the hull, per photo: its depth maps, then the mesh of what they measured.
  matching: 'matching',
  meshing: 'matching',
  simplifying: 'carving',
  checking: 'checking',
  texturing: 'texturing',
  writing_model: 'texturing',
  storing_model: 'storing_model',
};

/** Times the steps of one job as it reports them: each step lasts until the next one starts. */
export class StepTimer {
  private current: { step: string; since: number } | null = null;
  private readonly totals = new Map<MeasuredStep, number>();

  constructor(private readonly clock: Clock) {}

  enter(step: string): void {
    if (this.current?.step === step) return;
    this.close();
    this.current = { step, since: this.clock.now().getTime() };
  }

  /** The durations so far, the running step closed. */
  finish(): StepDuration[] {
    this.close();
    return [...this.totals].map(([step, ms]) => ({ step, seconds: ms / 1000 }));
  }

  private close(): void {
    if (!this.current) return;
    const measured = MEASURED_AS[this.current.step];
    if (measured) this.totals.set(measured, (this.totals.get(measured) ?? 0) + this.clock.now().getTime() - this.current.since);
    this.current = null;
  }
}
