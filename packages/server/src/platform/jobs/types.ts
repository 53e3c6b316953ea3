import type { Executor } from '../db/index.js';

export interface Job<T = Record<string, unknown>> {
  id: string;
  name: string;
  data: T;
  /** 1 on the first run, 2 on the first retry, … */
  attempt: number;
}

export type JobHandler = (job: Job) => Promise<void>;

export interface EnqueueOptions {
  /** run no earlier than this many seconds from now */
  delaySeconds?: number;
  /** retries after the first attempt fails (default 5) */
  retryLimit?: number;
}

/**
 * Durable background jobs. `enqueue` writes through the caller's executor, so a job enqueued inside a
 * transaction exists only if that transaction commits. Adapters: the local job table (SQLite, embedded
 * mode) and pg-boss (PostgreSQL).
 */
export interface JobQueue {
  readonly kind: 'local' | 'pg-boss';
  /** prepares storage for jobs (queues, tables); needed before enqueue */
  open(): Promise<void>;
  /** makes sure these queues exist (pg-boss needs them created up front; the local table does not) */
  declare(names: string[]): Promise<void>;
  enqueue(executor: Executor, name: string, data: Record<string, unknown>, opts?: EnqueueOptions): Promise<string>;
  /** registers the handler of a queue; call before start() */
  register(name: string, handler: JobHandler): void;
  /** starts working the registered queues in this process */
  start(): Promise<void>;
  /** stops taking jobs, waits for running ones (up to a timeout), releases the rest; then closes */
  close(): Promise<void>;
  ping(): Promise<void>;
}
