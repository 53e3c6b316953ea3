import type { Kysely, Migration } from 'kysely';

/** One row per live worker process: its heartbeat and the jobs it holds (see heartbeat.ts). */
export const workersMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('workers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('heartbeat_at', 'text', (c) => c.notNull())
      // JSON: the jobs the worker runs, [{ queue, id, started }]
      .addColumn('jobs', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('workers_heartbeat').on('workers').column('heartbeat_at').execute();
  },
};
