import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { CompiledQuery } from 'kysely';
import PgBoss from 'pg-boss';

type JobWithMetadata<T> = PgBoss.JobWithMetadata<T>;
import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import type { Database, Executor } from '../db/index.js';
import { checkEnqueueOptions, DEFAULT_CLOSE_TIMEOUT_MS, DEFAULT_RETRY_LIMIT, type JobQueueOptions } from './common.js';
import { WorkerHeartbeat, type HeartbeatQueue, type HeldJob } from './heartbeat.js';
import type { EnqueueOptions, JobHandler, JobQueue } from './types.js';

/** pg-boss doubles this per retry (1–2 s, 2–4 s, 4–8 s, …). */
const RETRY_DELAY_SECONDS = 1;
/** pg-boss refuses expirations of 24 h or more. */
const MAX_EXPIRE_SECONDS = 23 * 3600;

/**
 * pg-boss 10 in the application's PostgreSQL database (its own `pgboss` schema, its own small pool).
 * A job's lease is pg-boss's expiration: a job left active longer than `leaseSeconds` is failed by maintenance
 * and retried. pg-boss 10 has no heartbeat and its own `work()` cuts a handler off at the expiration, so this
 * adapter runs its own fetch loop (pg-boss's `fetch`, a `SKIP LOCKED` claim) and extends the expiration of each
 * running job every third of a lease: a generation that runs for minutes keeps its claim while its worker lives,
 * and a killed worker's job is retried one lease later, or sooner: 15 s after its worker's last heartbeat (see
 * heartbeat.ts), when a live worker expires it at once. (pg-boss 11 and 12 need Node 22; Plinth runs on 20.)
 */
export class PgBossJobQueue implements JobQueue, HeartbeatQueue {
  readonly kind = 'pg-boss' as const;
  private readonly boss: PgBoss;
  private readonly handlers = new Map<string, JobHandler>();
  /** queues known to exist, by name; pg-boss 10 drops jobs sent to a queue that was never created */
  private readonly queues = new Map<string, Promise<void>>();
  private creating: Promise<unknown> = Promise.resolve();
  private readonly expireInSeconds: number;
  private readonly pollingIntervalSeconds: number;
  private readonly closeTimeoutMs: number;
  private opening: Promise<void> | null = null;
  private readonly loops: Promise<void>[] = [];
  private readonly running = new Set<RunningJob>();
  private readonly idle = new IdleWait();
  private stopping = false;
  private started = false;
  private closed = false;
  private readonly heartbeat: WorkerHeartbeat;

  constructor(
    private readonly config: Readonly<Config>,
    database: Database,
    private readonly logger: Logger,
    options: JobQueueOptions = {},
  ) {
    this.expireInSeconds = Math.min(config.jobs.leaseSeconds, MAX_EXPIRE_SECONDS);
    // pg-boss polls no faster than every 500 ms.
    this.pollingIntervalSeconds = Math.max(0.5, config.jobs.pollMs / 1000);
    this.closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    this.boss = new PgBoss({
      connectionString: database.url,
      application_name: 'plinth-jobs',
      max: config.jobs.concurrency + 3,
      migrate: true,
      supervise: true,
      // Cron is unused; leaving it on would add pg-boss's internal queues and a clock monitor.
      schedule: false,
      // Expiry is found by maintenance, so it runs about once per lease to retry abandoned jobs promptly.
      maintenanceIntervalSeconds: Math.max(1, Math.min(this.expireInSeconds, 120)),
      pollingIntervalSeconds: this.pollingIntervalSeconds,
      expireInSeconds: this.expireInSeconds,
      retryLimit: DEFAULT_RETRY_LIMIT,
      retryDelay: RETRY_DELAY_SECONDS,
      retryBackoff: true,
    });
    // Without a listener an 'error' event would crash the process; pg-boss recovers from these by itself.
    this.boss.on('error', (err) => this.logger.error({ err }, 'pg-boss error'));
    const workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.heartbeat = new WorkerHeartbeat(workerId, database, this, logger, options.heartbeatMs, options.staleMs);
  }

  held(): HeldJob[] {
    return [...this.running].map((r) => ({ queue: r.name, id: r.id, started: r.started }));
  }

  /**
   * pg-boss does not know who fetched a job, so the dead worker's row lists them. Each still in the run the row
   * names (the same start) is made to have expired and pg-boss's own expiry fails it: a retry with its backoff
   * (the attempt counted) or, on the last attempt, a failure, exactly as when its lease runs out.
   */
  async releaseDead(_workerId: string, jobs: HeldJob[]): Promise<number> {
    let released = 0;
    for (const job of jobs) {
      const { rows } = await this.boss.getDb().executeSql(
        `UPDATE pgboss.job SET expire_in = interval '0'
         WHERE name = $1 AND id = $2 AND state = 'active'
           AND abs(extract(epoch from started_on) - extract(epoch from $3::timestamptz)) < 0.002
         RETURNING id`,
        [job.queue, job.id, job.started],
      );
      released += rows.length;
    }
    if (released) await this.boss.expire();
    if (released) this.idle.wakeAll();
    return released;
  }

  open(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('job queue is closed'));
    this.opening ??= (async () => {
      await this.boss.start();
      for (const name of this.handlers.keys()) await this.ensureQueue(name);
    })();
    return this.opening;
  }

  async enqueue(executor: Executor, name: string, data: Record<string, unknown>, opts: EnqueueOptions = {}): Promise<string> {
    if (!name) throw new TypeError('job name is required');
    const { retryLimit, delaySeconds } = checkEnqueueOptions(opts);
    await this.ready();
    // Created through pg-boss's own pool, outside the caller's transaction: a rollback must not undo the queue
    // while the cache says it exists.
    await this.ensureQueue(name);
    // pg-boss runs its INSERT through this, i.e. on the caller's connection and inside its transaction.
    const db = {
      async executeSql(text: string, values: unknown[]) {
        const result = await executor.executeQuery(CompiledQuery.raw(text, values));
        return { rows: result.rows as any[] };
      },
    };
    const id = await this.boss.send(name, data, {
      db,
      retryLimit,
      retryDelay: RETRY_DELAY_SECONDS,
      retryBackoff: true,
      expireInSeconds: this.expireInSeconds,
      ...(delaySeconds > 0 ? { startAfter: delaySeconds } : {}),
    });
    if (!id) throw new Error(`pg-boss did not accept job "${name}"`);
    return id;
  }

  register(name: string, handler: JobHandler): void {
    if (!name) throw new TypeError('job name is required');
    if (this.handlers.has(name)) throw new Error(`a handler for job "${name}" is already registered`);
    this.handlers.set(name, handler);
    if (this.started) {
      this.startWorkers(name).catch((err) => this.logger.error({ err, queue: name }, 'could not start job workers'));
    }
  }

  async start(): Promise<void> {
    if (this.started) return;
    await this.ready();
    this.started = true;
    await this.heartbeat.start();
    // One at a time: concurrent queue creation deadlocks inside PostgreSQL.
    for (const name of this.handlers.keys()) await this.startWorkers(name);
  }

  async declare(names: string[]): Promise<void> {
    await this.ready();
    for (const name of names) await this.ensureQueue(name);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.opening) return;
    await this.opening.catch(() => {});
    // Stop fetching, wait for running handlers up to the timeout, then give the unfinished ones back as a
    // failed attempt (retried by whoever fetches next), as pg-boss's own graceful stop does.
    this.stopping = true;
    this.idle.wakeAll();
    const running = [...this.running];
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.closeTimeoutMs)));
    await Promise.race([Promise.all(running.map((r) => r.done)), timeout]);
    clearTimeout(timer);
    for (const entry of this.running) {
      entry.released = true;
      await this.boss
        .fail(entry.name, entry.id, { message: 'worker stopped before the job finished' })
        .catch((err: unknown) => this.logger.error({ err, job: entry.id }, 'could not release a running job'));
    }
    await Promise.race([Promise.all(this.loops), new Promise((r) => setTimeout(r, 2000))]);
    await this.heartbeat.stop();
    await this.boss.stop({ graceful: false, wait: true, close: true, timeout: 1000 });
  }

  async ping(): Promise<void> {
    await this.ready();
    if (!(await this.boss.isInstalled())) throw new Error('pg-boss schema is missing');
  }

  private async ready(): Promise<void> {
    if (this.closed) throw new Error('job queue is closed');
    if (!this.opening) throw new Error('job queue is not open; call open() first');
    await this.opening;
  }

  private ensureQueue(name: string): Promise<void> {
    let created = this.queues.get(name);
    if (!created) {
      // Chained: concurrent createQueue calls deadlock inside PostgreSQL. Another process creating queues at the
      // same moment (two workers starting together) can still deadlock with this one: the loser tries again.
      created = this.creating.then(() => retryOnDeadlock(() => this.boss.createQueue(name))).catch((err: unknown) => {
        this.queues.delete(name);
        throw err;
      });
      this.queues.set(name, created);
      this.creating = created.catch(() => {});
    }
    return created;
  }

  /** `concurrency` fetch loops per queue, each running one job at a time. */
  private async startWorkers(name: string): Promise<void> {
    await this.ensureQueue(name);
    const handler = this.handlers.get(name)!;
    for (let i = 0; i < this.config.jobs.concurrency; i++) this.loops.push(this.workLoop(name, handler));
  }

  private async workLoop(name: string, handler: JobHandler): Promise<void> {
    while (!this.stopping) {
      let job: JobWithMetadata<Record<string, unknown>> | undefined;
      try {
        const jobs = await this.boss.fetch<Record<string, unknown>>(name, { batchSize: 1, includeMetadata: true });
        job = jobs?.[0];
      } catch (err) {
        if (this.stopping) return;
        this.logger.warn({ err, queue: name }, 'could not fetch jobs; retrying');
      }
      if (!job) {
        await this.idle.wait(this.pollingIntervalSeconds * 1000);
        continue;
      }
      await this.runOne(name, handler, job);
    }
  }

  private async runOne(name: string, handler: JobHandler, job: JobWithMetadata<Record<string, unknown>>): Promise<void> {
    const attempt = job.retryCount + 1;
    const entry: RunningJob = { name, id: job.id, started: new Date(job.startedOn).toISOString(), released: false, done: Promise.resolve() };
    const heartbeat = setInterval(() => void this.extend(entry), Math.max(250, Math.floor((this.expireInSeconds * 1000) / 3)));
    let settle = () => {};
    entry.done = new Promise<void>((resolve) => (settle = resolve));
    this.running.add(entry);
    // Listed in the heartbeat row at once: pg-boss keeps no holder, and a worker killed now must be found holding it.
    await this.heartbeat.write();
    try {
      await handler({ id: job.id, name: job.name, data: job.data ?? {}, attempt });
      clearInterval(heartbeat);
      if (!entry.released) await this.boss.complete(name, job.id);
    } catch (err) {
      clearInterval(heartbeat);
      const left = job.retryLimit - job.retryCount;
      this.logger.warn({ err, job: job.id, queue: name, attempt }, left > 0 ? 'job failed; will retry' : 'job failed; no attempts left');
      if (!entry.released) {
        const message = err instanceof Error ? err.message : String(err);
        await this.boss.fail(name, job.id, { message }).catch((e: unknown) => this.logger.error({ err: e, job: job.id }, 'could not record a job failure'));
      }
    } finally {
      clearInterval(heartbeat);
      this.running.delete(entry);
      settle();
    }
  }

  /** Pushes the job's expiration one lease past now, while it is still ours and active. */
  private async extend(entry: RunningJob): Promise<void> {
    if (entry.released) return;
    try {
      await this.boss.getDb().executeSql(
        `UPDATE pgboss.job SET expire_in = (now() - started_on) + make_interval(secs => $3)
         WHERE name = $1 AND id = $2 AND state = 'active'`,
        [entry.name, entry.id, this.expireInSeconds],
      );
    } catch (err) {
      this.logger.warn({ err, job: entry.id }, 'job heartbeat failed');
    }
  }
}

const DEADLOCK_ATTEMPTS = 5;

/**
 * Runs `work` again when PostgreSQL ended it as a deadlock victim (SQLSTATE 40P01: its transaction was rolled back,
 * so nothing is half done), after a short, growing, jittered pause; any other error, or a deadlock on the last
 * attempt, is thrown. For idempotent work only (pg-boss's createQueue does nothing for a queue that exists).
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>, attempts = DEADLOCK_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if ((err as { code?: unknown })?.code !== '40P01' || attempt >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt + Math.random() * 100));
    }
  }
}

interface RunningJob {
  name: string;
  id: string;
  /** when this run started (pg-boss's started_on): tells it from a later retry of the same job */
  started: string;
  /** set when close() gave the job back; the late-finishing handler must then leave it alone */
  released: boolean;
  done: Promise<void>;
}

/** A sleep that close() can cut short. */
class IdleWait {
  private wakers = new Set<() => void>();

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.wakers]) wake();
  }
}
