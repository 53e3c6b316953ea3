import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DB } from '../../db.js';
import { MODULE_MIGRATIONS } from '../../migrations.js';
import { openDatabase, type Database } from '../../platform/db/index.js';
import type { MigrationSet } from '../../platform/db/migrations.js';
import { freshPostgresDatabase, tempDir, TEST_BACKEND } from '../../test/env.js';
import { writeBeaconEvents } from './beacon-writes.js';

const ROW_KEY = '0009_beacon_event_row_key';

/** The module migrations released before the raw events got their integer key. */
const beforeRowKey: MigrationSet = (dialect) => {
  const all = MODULE_MIGRATIONS(dialect);
  return Object.fromEntries(Object.entries(all).filter(([name]) => name < ROW_KEY));
};

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function databaseUrl(): Promise<string> {
  if (TEST_BACKEND === 'postgres') {
    const database = await freshPostgresDatabase();
    cleanup.push(database.drop);
    return database.url;
  }
  const dir = tempDir();
  cleanup.push(async () => dir.remove());
  return join(dir.path, 'plinth.sqlite');
}

async function open(url: string, migrations: MigrationSet): Promise<Database<DB>> {
  const database = openDatabase<DB>(url, migrations);
  await database.migrate();
  return database;
}

const event = (at: string, subject: string) => ({
  org_id: 'org_m',
  subject_id: subject,
  type: 'view' as const,
  internal: 0,
  occurred_at: at,
  received_at: at,
  viewer_id: null,
  duration_ms: null,
  clamped: 0,
});

describe('0009_beacon_event_row_key', () => {
  it('keeps every raw event of an older database, in the order it was received, and keys new ones after them', async () => {
    const url = await databaseUrl();
    const old = await open(url, beforeRowKey);
    await old.db.insertInto('organizations').values({ id: 'org_m', name: 'M', plan: 'active', credit_balance: 0, created_at: '2026-11-01T00:00:00.000Z' }).execute();
    // Text ids as the old code made them (time first), inserted out of order: the copy follows the ids.
    await old.db
      .insertInto('beacon_events' as never)
      .values([
        { id: 'bev_01jd00000000000000000002', ...event('2026-11-02T00:00:00.000Z', 'prod_b') },
        { id: 'bev_01jd00000000000000000001', ...event('2026-11-01T00:00:00.000Z', 'prod_a') },
        { id: 'bev_01jd00000000000000000003', ...event('2026-11-03T00:00:00.000Z', 'prod_c') },
      ] as never)
      .execute();
    await old.close();

    const migrated = await open(url, MODULE_MIGRATIONS);
    cleanup.push(() => migrated.close());
    await writeBeaconEvents(migrated.db, [
      {
        orgId: 'org_m',
        subjectId: 'prod_d',
        type: 'view',
        internal: false,
        occurredAt: '2026-11-04T00:00:00.000Z',
        receivedAt: '2026-11-04T00:00:00.000Z',
        viewerId: 'v',
        durationMs: null,
        name: null,
        value: null,
        currency: null,
        experimentId: null,
        arm: null,
        device: null,
        referrer: null,
        clamped: false,
      },
    ]);

    const rows = await migrated.db.selectFrom('beacon_events').select(['id', 'subject_id', 'received_at', 'viewer_id']).orderBy('id').execute();
    expect(rows.map((r) => r.subject_id)).toEqual(['prod_a', 'prod_b', 'prod_c', 'prod_d']);
    expect(rows.map((r) => r.viewer_id)).toEqual([null, null, null, 'v']);
    const ids = rows.map((r) => Number(r.id));
    expect(ids.every((id, i) => Number.isSafeInteger(id) && (i === 0 || id > ids[i - 1]))).toBe(true);
  });
});

describe('0014_experiment_exposures', () => {
  const EXPOSURES = '0014_experiment_exposures';
  const beforeExposures: MigrationSet = (dialect) => Object.fromEntries(Object.entries(MODULE_MIGRATIONS(dialect)).filter(([name]) => name < EXPOSURES));

  it('fills exposures from the events already stored: one per viewer and arm, never internal or viewerless ones', async () => {
    const url = await databaseUrl();
    const old = await open(url, beforeExposures);
    await old.db.insertInto('organizations').values({ id: 'org_m', name: 'M', plan: 'active', credit_balance: 0, created_at: '2026-11-01T00:00:00.000Z' }).execute();
    const seen = (viewer: string | null, arm: string, internal = 0) => ({ ...event('2026-11-02T00:00:00.000Z', 'prod_a'), viewer_id: viewer, experiment_id: 'expt_1', arm, internal });
    await old.db
      .insertInto('beacon_events')
      .values([seen('v1', '3d'), seen('v1', '3d'), seen('v2', 'poster'), seen('v3', '3d'), seen('v3', 'poster'), seen(null, '3d'), seen('staff', 'poster', 1), event('2026-11-02T00:00:00.000Z', 'prod_a')])
      .execute();
    await old.close();

    const migrated = await open(url, MODULE_MIGRATIONS);
    cleanup.push(() => migrated.close());
    const rows = await migrated.db.selectFrom('experiment_exposures').select(['experiment_id', 'org_id', 'viewer_id', 'arm']).orderBy('viewer_id').orderBy('arm').execute();
    expect(rows.map((r) => `${r.experiment_id} ${r.org_id} ${r.viewer_id} ${r.arm}`)).toEqual([
      'expt_1 org_m v1 3d',
      'expt_1 org_m v2 poster',
      'expt_1 org_m v3 3d',
      'expt_1 org_m v3 poster',
    ]);
  });
});
