import type { Config } from './config.js';
import type { DB } from './db.js';
import { MODULE_MIGRATIONS } from './migrations.js';
import { openDatabase, type Database } from './platform/db/index.js';
import { createBlobStore } from './platform/storage/index.js';
import type { BlobStore } from './platform/storage/types.js';
import { Jobs } from './platform/jobs/define.js';
import { createJobQueue } from './platform/jobs/index.js';
import { createFetcher } from './platform/fetch/index.js';
import type { GuardedFetcher } from './platform/fetch/types.js';
import { createRateLimiter } from './platform/ratelimit/index.js';
import type { RateLimiter } from './platform/ratelimit/types.js';
import { systemClock, type Clock } from './platform/clock.js';
import { createMailer, type Mailer } from './platform/mail/index.js';
import type { Logger } from './logger.js';
import { Background } from './platform/background.js';
import { createMediaRunner, type MediaRunner } from './platform/sandbox/media-sandbox.js';

/** Everything a service may touch, passed explicitly; no globals. */
export interface Deps {
  config: Readonly<Config>;
  database: Database<DB>;
  storage: BlobStore;
  jobs: Jobs;
  fetcher: GuardedFetcher;
  rateLimiter: RateLimiter;
  mailer: Mailer;
  clock: Clock;
  logger: Logger;
  /** loops started beside the job workers, stopped first on close */
  background: Background;
  /** the media engine, run in sandboxed child processes */
  media: MediaRunner;
}

/** Picks the adapters the config asks for. Nothing else decides between SQLite/PostgreSQL, disk/S3, … */
export async function createDeps(config: Readonly<Config>, logger: Logger, overrides: Partial<Deps> = {}): Promise<Deps> {
  const database = overrides.database ?? openDatabase<DB>(config.databaseUrl, MODULE_MIGRATIONS);
  await database.migrate();
  const jobs = overrides.jobs ?? new Jobs(createJobQueue(config, database, logger), logger);
  await jobs.open();
  // pg-boss needs every queue created up front: creating one inside a request's transaction can deadlock.
  await jobs.declare();
  return {
    config,
    database,
    storage: overrides.storage ?? createBlobStore(config),
    jobs,
    fetcher: overrides.fetcher ?? createFetcher(config),
    rateLimiter: overrides.rateLimiter ?? createRateLimiter(config),
    mailer: overrides.mailer ?? createMailer(config),
    clock: overrides.clock ?? systemClock,
    logger,
    background: overrides.background ?? new Background(),
    media: overrides.media ?? createMediaRunner(config.media, logger),
  };
}

/**
 * The outside systems a process cannot work without, each by its adapter: health probes each one and
 * the start-up log names each one's `kind` (`sqlite`, `s3`, `pg-boss`, …), without asking what it is.
 */
export function essentialAdapters(deps: Deps) {
  return { database: deps.database, storage: deps.storage, jobs: deps.jobs };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await deps.background.close();
  await deps.jobs.close();
  await Promise.allSettled([deps.media.close(), deps.rateLimiter.close(), deps.fetcher.close(), deps.storage.close(), deps.mailer.close()]);
  await deps.database.close();
}
