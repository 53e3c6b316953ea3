import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Logger } from '../../logger.js';
import { platformTables, type Executor, type PlatformTables } from '../db/index.js';
import type { JobQueue } from './types.js';

/** What a handler learns about the run it is in. */
export interface JobRun {
  id: string;
  /** 1 on the first run, 2 on the first retry, … */
  attempt: number;
  /** no retry follows a failure of this attempt */
  last: boolean;
}

/**
 * Why a job will not run again. `error` carries what the handler threw (on its last attempt, or a
 * permanent failure); `worker_lost` means the last attempt never finished: its process was killed or
 * died, or it ran out of lease, so there is no error object to read.
 */
export type JobFailure = { kind: 'error'; error: unknown } | { kind: 'worker_lost' };

/**
 * What a producer needs of a job: its name, its payload's schema and its retry policy. It lives in its
 * area's `<area>.job-defs.ts`, apart from the code that runs it, so enqueueing a job never imports its
 * handler (nor what the handler imports); the payload is checked by the compiler at the producer and by
 * the schema at both ends, so a producer and its consumer cannot drift apart.
 */
export interface JobSpec<S extends TSchema = TSchema> {
  readonly name: string;
  readonly payload: S;
  /** retries after the first attempt */
  readonly retryLimit: number;
  /**
   * How long one attempt may run, in seconds (default DEFAULT_JOB_DEADLINE_S). Past it the attempt fails with
   * JobDeadlineExceeded, as any failure does (a retry, or onFailed on the last attempt): a handler stuck on
   * something with no limit of its own cannot hold its job while its worker beats. Each media step has its own,
   * shorter limit (PLINTH_MEDIA_TIMEOUT_S); this is the limit of the whole attempt.
   */
  readonly deadlineSeconds?: number;
}

/** What the worker runs for a job: its handler, its failure hook and which failures no retry can cure. */
export interface JobHandlers<S extends TSchema = TSchema, C = any> {
  /** failures no retry can cure (bad input): no further attempt, straight to onFailed */
  readonly permanent?: (err: unknown) => boolean;
  readonly handle: (ctx: C, data: Static<S>, run: JobRun) => Promise<void>;
  /**
   * Runs once the job will not run again: after a permanent failure, a failure of the last attempt,
   * or the loss of the worker during the last attempt. It records the outcome (a product's status, a
   * refund), so nothing is left waiting for a job that is gone. It must tolerate running twice.
   */
  readonly onFailed?: (ctx: C, data: Static<S>, failure: JobFailure) => Promise<void>;
}

/** A job with its handlers: what `Jobs.register` runs. */
export interface JobDefinition<S extends TSchema = TSchema, C = any> extends JobSpec<S>, JobHandlers<S, C> {}

const defined = new Map<string, JobSpec>();

/** One attempt of any job: longer than the slowest legitimate one (a generation: camera recovery up to 10 minutes). */
export const DEFAULT_JOB_DEADLINE_S = 3600;

/** An attempt that ran past its job's deadline. */
export class JobDeadlineExceeded extends Error {
  override readonly name = 'JobDeadlineExceeded';
}

/** Runs `work`, failing with JobDeadlineExceeded after `seconds`; the work is not waited for past it. */
async function withDeadline(name: string, seconds: number, work: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new JobDeadlineExceeded(`job "${name}" ran past its deadline of ${seconds} s`)), seconds * 1000);
  });
  try {
    await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}

/**
 * Declares a job: its spec alone (a `<area>.job-defs.ts`, joined to its handlers by `handleJob` where the
 * worker registers it), or spec and handlers at once. Names are unique across the process; pg-boss creates
 * a queue for each at start.
 */
export function defineJob<S extends TSchema, C>(def: JobDefinition<S, C>): JobDefinition<S, C>;
export function defineJob<S extends TSchema>(spec: JobSpec<S>): JobSpec<S>;
export function defineJob<S extends TSchema>(def: JobSpec<S>): JobSpec<S> {
  if (!def.name) throw new TypeError('job name is required');
  if (!Number.isInteger(def.retryLimit) || def.retryLimit < 0) throw new TypeError(`job "${def.name}": retryLimit must be an integer >= 0`);
  if (def.deadlineSeconds !== undefined && !(def.deadlineSeconds > 0)) throw new TypeError(`job "${def.name}": deadlineSeconds must be positive`);
  if (defined.has(def.name)) throw new Error(`job "${def.name}" is defined twice`);
  defined.set(def.name, def as unknown as JobSpec);
  return def;
}

/** A declared job with the handlers the worker runs for it. */
export function handleJob<S extends TSchema, C>(spec: JobSpec<S>, handlers: JobHandlers<S, C>): JobDefinition<S, C> {
  if (defined.get(spec.name) !== spec) throw new Error(`job "${spec.name}" is not declared by defineJob`);
  return { ...spec, ...handlers };
}

/** Names of every job defined so far (all of them once the app's modules are imported). */
export function definedJobNames(): string[] {
  return [...defined.keys()];
}

class InvalidPayload extends Error {
  override readonly name = 'InvalidPayload';
}

function checked<S extends TSchema>(def: JobSpec<S>, data: unknown): Static<S> {
  if (Value.Check(def.payload, data)) return data;
  const first = [...Value.Errors(def.payload, data)][0];
  throw new InvalidPayload(`job "${def.name}": payload ${first ? `${first.path || '/'} ${first.message}` : 'does not match its schema'}`);
}

/**
 * The typed face of the job queue that services use: jobs are enqueued and registered by definition.
 * Each job is given one attempt more than its policy allows. That spare attempt runs only when the last
 * real one never reported back (its worker was killed, or it outlived its lease): it calls onFailed with
 * `worker_lost` instead of the handler, so even a job that kills its worker ends with a recorded failure.
 */
export class Jobs {
  constructor(
    readonly queue: JobQueue,
    private readonly logger: Logger,
  ) {}

  get kind() {
    return this.queue.kind;
  }

  async enqueue<S extends TSchema, DB extends PlatformTables>(
    executor: Executor<DB>,
    def: JobSpec<S>,
    data: Static<S>,
    opts: { delaySeconds?: number } = {},
  ): Promise<string> {
    return this.queue.enqueue(platformTables(executor), def.name, checked(def, data) as Record<string, unknown>, { ...opts, retryLimit: def.retryLimit + 1 });
  }

  register<S extends TSchema, C>(def: JobDefinition<S, C>, ctx: C): void {
    const attempts = def.retryLimit + 1;
    this.queue.register(def.name, async (job) => {
      const data = checked(def, job.data);
      const log = this.logger.child({ job: job.id, queue: def.name, attempt: job.attempt });
      if (job.attempt > attempts) {
        log.error('job failed: its worker stopped during the last attempt');
        await def.onFailed?.(ctx, data, { kind: 'worker_lost' });
        // Ends the spare attempt as a failure, which is what the job was.
        throw new Error('the last attempt did not finish (worker lost)');
      }
      try {
        const run = def.handle(ctx, data, { id: job.id, attempt: job.attempt, last: job.attempt === attempts });
        await withDeadline(def.name, def.deadlineSeconds ?? DEFAULT_JOB_DEADLINE_S, run);
      } catch (err) {
        const permanent = def.permanent?.(err) ?? false;
        if (!permanent && job.attempt < attempts) throw err;
        if (!permanent) log.error({ err }, 'job failed on its last attempt');
        // If recording the failure itself fails, the error reaches the queue and the spare attempt tries again.
        await def.onFailed?.(ctx, data, { kind: 'error', error: err });
      }
    });
  }

  async declare(names: string[] = definedJobNames()): Promise<void> {
    await this.queue.declare(names);
  }

  open = () => this.queue.open();
  start = () => this.queue.start();
  close = () => this.queue.close();
  ping = () => this.queue.ping();
}
