import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ExpressionBuilder } from 'kysely';
import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import type { Database, Executor } from '../db/index.js';
import type { JobsTable, PlatformTables } from '../db/schema.js';
import { newId } from '../ids.js';
import { checkEnqueueOptions, DEFAULT_CLOSE_TIMEOUT_MS, type JobQueueOptions } from './common.js';
import { STALE_MS, WorkerHeartbeat, type HeartbeatQueue, type HeldJob } from './heartbeat.js';
import type { EnqueueOptions, JobHandler, JobQueue } from './types.js';

const MAX_BACKOFF_SECONDS = 3600;
const PRUNE_EVERY_MS = 3_600_000;
const KEEP_COMPLETED_MS = 86_400_000;

/** 1 s, 2 s, 4 s, … capped at an hour, plus up to 20 % jitter so failed batches don't retry in lockstep. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(2 ** Math.max(0, attempt - 1), MAX_BACKOFF_SECONDS) * 1000;
  return Math.round(base * (1 + 0.2 * random()));
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.stack || `${err.name}: ${err.message}`;
  return String(err);
}

const iso = (ms: number) => new Date(ms).toISOString();

interface Running {
  held: HeldJob;
  task: Promise<void>;
  heartbeat: NodeJS.Timeout;
  /** set when close() handed the job back; the handler may still be running but no longer owns it */
  released: boolean;
}

/**
 * Jobs in the `jobs` table, for SQLite (embedded mode). A worker owns a job while `locked_by` names it and
 * `locked_until` is in the future; it keeps the lease alive while the handler runs. When the process dies the
 * lease runs out and any worker may claim the job again, so handlers must tolerate running more than once.
 * Timestamps are ISO-8601 UTC text of fixed width, so text comparison orders them correctly. A worker that stops
 * beating (see heartbeat.ts) loses its jobs sooner than that: 15 s after its last heartbeat.
 */
export class LocalJobQueue implements JobQueue, HeartbeatQueue {
  readonly kind = 'local' as const;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Map<string, Running>();
  private readonly workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly closeTimeoutMs: number;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  /** a wake-up came while a poll ran: poll again as soon as it ends */
  private wanted = false;
  private started = false;
  private stopping = false;
  private lastPrune = 0;
  private readonly heartbeat: WorkerHeartbeat;

  constructor(
    private readonly config: Readonly<Config>,
    private readonly database: Database,
    private readonly logger: Logger,
    options: JobQueueOptions = {},
  ) {
    this.closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    this.heartbeat = new WorkerHeartbeat(this.workerId, database, this, logger, options.heartbeatMs, options.staleMs);
  }

  async open(): Promise<void> {
    // The table comes from the migrations; failing here is clearer than failing at the first enqueue.
    await this.ping();
  }

  async enqueue(executor: Executor, name: string, data: Record<string, unknown>, opts: EnqueueOptions = {}): Promise<string> {
    if (!name) throw new TypeError('job name is required');
    const { retryLimit, delaySeconds } = checkEnqueueOptions(opts);
    const now = Date.now();
    const id = newId('job', now);
    await executor
      .insertInto('jobs')
      .values({
        id,
        queue: name,
        payload: JSON.stringify(data),
        state: 'queued',
        attempts: 0,
        max_attempts: retryLimit + 1,
        run_at: iso(now + delaySeconds * 1000),
        locked_until: null,
        locked_by: null,
        last_error: null,
        created_at: iso(now),
        updated_at: iso(now),
      })
      .execute();
    // Enqueued in this process (the embedded worker): look for it now rather than at the next poll. The claim
    // queues on the one SQLite connection behind the caller's transaction, so it finds the job once committed.
    if (delaySeconds === 0 && this.handlers.has(name)) setImmediate(() => this.wake());
    return id;
  }

  register(name: string, handler: JobHandler): void {
    if (!name) throw new TypeError('job name is required');
    if (this.handlers.has(name)) throw new Error(`a handler for job "${name}" is already registered`);
    this.handlers.set(name, handler);
    // Registering after start() is picked up by the next poll, since names are read on every claim.
  }

  async start(): Promise<void> {
    if (this.started || this.stopping) return;
    this.started = true;
    await this.heartbeat.start();
    this.schedule(0);
  }

  held(): HeldJob[] {
    return [...this.running.values()].map((r) => r.held);
  }

  /** The job table names the holder of each job: every job the dead worker still holds goes back to the queue. */
  async releaseDead(workerId: string): Promise<number> {
    const now = iso(Date.now());
    // The attempt stays counted; a job on its last attempt is failed when it is claimed next (see execute).
    const result = await this.database.db
      .updateTable('jobs')
      .set({ state: 'queued', run_at: now, locked_until: null, locked_by: null, updated_at: now, last_error: `its worker stopped (no heartbeat for ${STALE_MS / 1000} s)` })
      .where('locked_by', '=', workerId)
      .where('state', '=', 'active')
      .executeTakeFirst();
    const released = Number(result.numUpdatedRows);
    if (released) this.wake();
    return released;
  }

  async close(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // A claim in flight may still add a running job; let it land so it is waited for or released below.
    await this.polling;
    await this.closeRunning();
    await this.heartbeat.stop();
  }

  private async closeRunning(): Promise<void> {
    const pending = [...this.running.values()].map((r) => r.task);
    if (pending.length) {
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(pending),
        new Promise<void>((resolve) => (timeout = setTimeout(resolve, this.closeTimeoutMs))),
      ]);
      clearTimeout(timeout);
    }

    const unfinished = [...this.running.entries()];
    if (!unfinished.length) return;
    for (const [, r] of unfinished) {
      r.released = true;
      clearInterval(r.heartbeat);
    }
    const ids = unfinished.map(([id]) => id);
    const now = iso(Date.now());
    // The attempt was cut short by the shutdown, not failed by the handler, so it is not counted.
    await this.database.db
      .updateTable('jobs')
      .set((eb) => ({
        state: 'queued',
        attempts: eb('attempts', '-', 1),
        run_at: now,
        locked_until: null,
        locked_by: null,
        updated_at: now,
      }))
      .where('id', 'in', ids)
      .where('locked_by', '=', this.workerId)
      .where('state', '=', 'active')
      .execute();
    this.logger.warn({ jobs: ids }, 'jobs still running at shutdown were released for another worker');
  }

  /** The local table needs no per-queue setup. */
  async declare(): Promise<void> {}

  async ping(): Promise<void> {
    await this.database.db.selectFrom('jobs').select('id').limit(1).execute();
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wanted = false;
      this.polling = this.poll().finally(() => {
        this.polling = null;
        this.schedule(this.wanted ? 0 : this.config.jobs.pollMs);
      });
    }, delayMs);
  }

  /**
   * A finished job frees a slot, a new job may be waiting: look for work now instead of waiting out the poll
   * interval. During a poll, the next one follows it at once (this one may have looked before the change).
   */
  private wake(): void {
    if (this.stopping || !this.started) return;
    if (!this.timer) {
      this.wanted = true;
      return;
    }
    clearTimeout(this.timer);
    this.schedule(0);
  }

  private async poll(): Promise<void> {
    try {
      while (!this.stopping && this.running.size < this.config.jobs.concurrency) {
        const job = await this.claim();
        if (!job) break;
        this.run(job);
      }
      await this.prune();
    } catch (err) {
      // Typically SQLITE_BUSY from another process holding the write lock; the next poll tries again.
      this.logger.warn({ err }, 'job poll failed');
    }
  }

  private async claim(): Promise<JobsTable | undefined> {
    const names = [...this.handlers.keys()];
    if (!names.length) return undefined;
    // Another worker may take the job read below first: then the next one due is read, a few times at most.
    for (let tries = 0; tries < 5; tries++) {
      const now = Date.now();
      const nowIso = iso(now);
      const isDue = (w: ExpressionBuilder<PlatformTables, 'jobs'>) =>
        w.or([
          w.and([w('state', '=', 'queued'), w('run_at', '<=', nowIso)]),
          w.and([w('state', '=', 'active'), w('locked_until', '<', nowIso)]),
        ]);
      // A read first: in WAL mode it never waits for a writer, where the claim waits for the write lock in
      // SQLite's busy handler, which sleeps on the event loop (another process's commit in progress: an API
      // taking a beacon flood beside a `plinth worker`). Most polls find nothing and stop here.
      const due = await this.database.db.selectFrom('jobs').select('id').where('queue', 'in', names).where(isDue).orderBy('run_at').limit(1).executeTakeFirst();
      if (!due) return undefined;
      // The claim checks again that the job is due: SQLite runs it under the write lock, so two workers cannot
      // both take the same row.
      const job = await this.database.db
        .updateTable('jobs')
        .set((eb) => ({
          state: 'active',
          attempts: eb('attempts', '+', 1),
          locked_by: this.workerId,
          locked_until: iso(now + this.config.jobs.leaseSeconds * 1000),
          updated_at: nowIso,
        }))
        .where('id', '=', due.id)
        .where(isDue)
        .returningAll()
        .executeTakeFirst();
      if (job) return job;
    }
    return undefined;
  }

  private run(job: JobsTable): void {
    const leaseMs = this.config.jobs.leaseSeconds * 1000;
    // Renewing at a third of the lease leaves two chances before it lapses.
    const heartbeat = setInterval(() => void this.extend(job.id), Math.max(100, Math.floor(leaseMs / 3)));
    const entry: Running = { held: { queue: job.queue, id: job.id, started: job.updated_at }, task: Promise.resolve(), heartbeat, released: false };
    entry.task = this.execute(job, entry).finally(() => {
      clearInterval(heartbeat);
      this.running.delete(job.id);
      this.wake();
    });
    this.running.set(job.id, entry);
  }

  private async execute(job: JobsTable, entry: Running): Promise<void> {
    const log = this.logger.child({ job: job.id, queue: job.queue, attempt: job.attempts });
    // Claimed again after a worker died on the last allowed attempt: the job is what keeps killing workers.
    if (job.attempts > job.max_attempts) {
      await this.settle(job, 'failed', 'lease expired during the last attempt').catch((err) => log.error({ err }, 'job bookkeeping failed'));
      log.error('job failed: its worker stopped during the last attempt');
      return;
    }
    let failure: unknown = null;
    try {
      const handler = this.handlers.get(job.queue);
      if (!handler) throw new Error(`no handler for job "${job.queue}"`);
      await handler({ id: job.id, name: job.queue, data: JSON.parse(job.payload), attempt: job.attempts });
    } catch (err) {
      failure = err ?? new Error('job handler threw a nullish value');
    }
    if (entry.released) return;
    try {
      if (failure === null) {
        await this.settle(job, 'completed', null);
      } else if (job.attempts >= job.max_attempts) {
        await this.settle(job, 'failed', errorText(failure));
        log.error({ err: failure }, 'job failed; no attempts left');
      } else {
        const delay = backoffMs(job.attempts);
        await this.settle(job, 'queued', errorText(failure), Date.now() + delay);
        log.warn({ err: failure, retryInMs: delay }, 'job failed; will retry');
      }
    } catch (err) {
      log.error({ err }, 'job bookkeeping failed; the job runs again when its lease expires');
    }
  }

  /** Writes the outcome only while this worker still owns the job, so a stale run cannot overwrite a newer one. */
  private async settle(job: JobsTable, state: JobsTable['state'], lastError: string | null, runAt?: number): Promise<void> {
    const now = iso(Date.now());
    const result = await this.database.db
      .updateTable('jobs')
      .set({
        state,
        last_error: lastError,
        locked_until: null,
        locked_by: null,
        updated_at: now,
        ...(runAt === undefined ? {} : { run_at: iso(runAt) }),
      })
      .where('id', '=', job.id)
      .where('locked_by', '=', this.workerId)
      .where('state', '=', 'active')
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) this.logger.warn({ job: job.id }, 'job lease was lost before it finished; outcome dropped');
  }

  private async extend(id: string): Promise<void> {
    try {
      await this.database.db
        .updateTable('jobs')
        .set({ locked_until: iso(Date.now() + this.config.jobs.leaseSeconds * 1000) })
        .where('id', '=', id)
        .where('locked_by', '=', this.workerId)
        .where('state', '=', 'active')
        .execute();
    } catch (err) {
      this.logger.warn({ err, job: id }, 'job heartbeat failed');
    }
  }

  private async prune(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.database.db
      .deleteFrom('jobs')
      .where('state', '=', 'completed')
      .where('updated_at', '<', iso(now - KEEP_COMPLETED_MS))
      .execute();
  }
}
