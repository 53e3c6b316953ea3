import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import { hostsPgBoss, type Database, type PlatformTables } from '../db/index.js';
import type { JobQueueOptions } from './common.js';
import { LocalJobQueue } from './local-queue.js';
import { PgBossJobQueue } from './pgboss-queue.js';
import type { JobQueue } from './types.js';

export type { EnqueueOptions, Job, JobHandler, JobQueue } from './types.js';
export type { JobQueueOptions } from './common.js';

/** The job table next to the data on SQLite; pg-boss in the same database on PostgreSQL. */
export function createJobQueue<DB extends PlatformTables>(
  config: Readonly<Config>,
  database: Database<DB>,
  logger: Logger,
  options: JobQueueOptions = {},
): JobQueue {
  // A queue touches only the platform's `jobs` table (or pg-boss's own schema), whatever else the app composed.
  const own = database as unknown as Database;
  return hostsPgBoss(own) ? new PgBossJobQueue(config, own, logger, options) : new LocalJobQueue(config, own, logger, options);
}
