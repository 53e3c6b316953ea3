import { hostname } from 'node:os';
import type { Logger } from '../../logger.js';
import type { Database, Executor } from '../db/index.js';
import type { WorkersTable } from '../db/schema.js';

/** Every worker process writes its heartbeat this often (DESIGN §17). */
export const HEARTBEAT_MS = 5_000;
/** A worker whose heartbeat is older than this is dead: its jobs go to another worker at once. */
export const STALE_MS = 15_000;

/** A job a worker runs, as its heartbeat row lists it. `started` tells one run of a job from its retry. */
export interface HeldJob {
  queue: string;
  id: string;
  started: string;
}

/** What the heartbeat needs of a queue adapter. */
export interface HeartbeatQueue {
  /** the jobs this process runs now */
  held(): HeldJob[];
  /** gives a dead worker's jobs to whoever fetches next, as a failed attempt; returns how many */
  releaseDead(workerId: string, jobs: HeldJob[]): Promise<number>;
}

/** A live worker, as GET /v1/health lists it. */
export interface LiveWorker {
  id: string;
  host: string;
  started_at: string;
  last_heartbeat_at: string;
  jobs_held: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The `workers` row of one worker process: written at start and every HEARTBEAT_MS with the jobs it holds,
 * deleted at a clean stop. Each beat also looks for rows older than STALE_MS: a worker that was killed (or
 * lost its machine) holds its jobs only until then, whatever the job lease is. The row is deleted before its
 * jobs are released, in one statement that only one live worker can win, so a dead worker's job is released
 * (and its attempt counted) once.
 */
export class WorkerHeartbeat {
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private readonly startedAt = iso(Date.now());

  constructor(
    readonly workerId: string,
    private readonly database: Database,
    private readonly queue: HeartbeatQueue,
    private readonly logger: Logger,
    private readonly everyMs = HEARTBEAT_MS,
    private readonly staleMs = STALE_MS,
  ) {}

  async start(): Promise<void> {
    if (this.timer) return;
    await this.beat();
    this.timer = setInterval(() => {
      this.beating ??= this.beat().finally(() => (this.beating = null));
    }, this.everyMs);
    // A heartbeat alone must not keep a process alive.
    this.timer.unref();
  }

  /** Stops beating and removes the row: a clean stop has released its jobs itself. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    await this.database.db
      .deleteFrom('workers')
      .where('id', '=', this.workerId)
      .execute()
      .catch((err: unknown) => this.logger.warn({ err }, 'could not remove the worker heartbeat'));
  }

  /** Writes this worker's row and releases what dead workers held. */
  async beat(): Promise<void> {
    const now = Date.now();
    try {
      await this.writeRow(now);
      await this.reap(now);
    } catch (err) {
      this.logger.warn({ err }, 'worker heartbeat failed');
    }
  }

  /** Writes this worker's row now, with the jobs it holds (after a claim, say). */
  async write(): Promise<void> {
    await this.writeRow(Date.now()).catch((err: unknown) => this.logger.warn({ err }, 'worker heartbeat failed'));
  }

  private async writeRow(now: number): Promise<void> {
    const row: WorkersTable = { id: this.workerId, host: hostname(), pid: process.pid, started_at: this.startedAt, heartbeat_at: iso(now), jobs: JSON.stringify(this.queue.held()) };
    await this.database.db
      .insertInto('workers')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: row.heartbeat_at, jobs: row.jobs }))
      .execute();
  }

  /** Releases the jobs of every worker whose heartbeat is older than staleMs. */
  async reap(now = Date.now()): Promise<number> {
    const stale = await this.database.db.selectFrom('workers').select('id').where('heartbeat_at', '<', iso(now - this.staleMs)).execute();
    let released = 0;
    for (const { id } of stale) {
      // Deleted first and only while still stale: of two live workers reaping at once, one gets the row.
      const dead = await this.database.db
        .deleteFrom('workers')
        .where('id', '=', id)
        .where('heartbeat_at', '<', iso(now - this.staleMs))
        .returningAll()
        .executeTakeFirst();
      if (!dead) continue;
      const jobs = JSON.parse(dead.jobs) as HeldJob[];
      const count = await this.queue.releaseDead(dead.id, jobs);
      released += count;
      this.logger.warn({ worker: dead.id, host: dead.host, lastHeartbeat: dead.heartbeat_at, jobs: count }, 'a worker stopped beating; its jobs were released for another worker');
    }
    return released;
  }
}

/** Workers whose heartbeat is recent, oldest first. */
export async function liveWorkers(db: Executor, now = Date.now(), staleMs = STALE_MS): Promise<LiveWorker[]> {
  const rows = await db.selectFrom('workers').selectAll().where('heartbeat_at', '>=', iso(now - staleMs)).orderBy('started_at').execute();
  return rows.map((r) => ({
    id: r.id,
    host: r.host,
    started_at: r.started_at,
    last_heartbeat_at: r.heartbeat_at,
    jobs_held: (JSON.parse(r.jobs) as HeldJob[]).length,
  }));
}
