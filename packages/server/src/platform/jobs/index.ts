import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import { hostsPgBoss, type Database } from '../db/index.js';
import type { JobQueueOptions } from './common.js';
import { LocalJobQueue } from './local-queue.js';
import { PgBossJobQueue } from './pgboss-queue.js';
import type { JobQueue } from './types.js';

export type { EnqueueOptions, Job, JobHandler, JobQueue } from './types.js';
export type { JobQueueOptions } from './common.js';

/** The job table next to the data on SQLite; pg-boss in the same database on PostgreSQL. */
export function createJobQueue(
  config: Readonly<Config>,
  database: Database,
  logger: Logger,
  options: JobQueueOptions = {},
): JobQueue {
  return hostsPgBoss(database)
    ? new PgBossJobQueue(config, database, logger, options)
    : new LocalJobQueue(config, database, logger, options);
}
