import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Replays belong to the principal that made the first request, and stored answers keep no secret
 * material. Rows written before this (a 24 h cache) may hold key material or name no principal:
 * they are dropped rather than trusted.
 */
export const idempotencyPrincipalMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('idempotency_keys').addColumn('principal', 'text').execute();
    await sql`delete from idempotency_keys`.execute(db);
  },
};
