import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';

/**
 * Which backends this test run uses. The `sqlite` vitest project runs the embedded defaults
 * (SQLite, disk, local jobs, memory rate limits); the `postgres` project runs the same files on
 * PostgreSQL + pg-boss, Redis rate limits and S3 (s3rver).
 */
export const TEST_BACKEND: 'sqlite' | 'postgres' = process.env.PLINTH_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
export const TEST_POSTGRES_URL = process.env.PLINTH_TEST_POSTGRES_URL || null;
export const TEST_REDIS_URL = process.env.PLINTH_TEST_REDIS_URL || null;

export function tempDir(prefix = 'plinth-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A fresh, empty PostgreSQL database for one test file; dropped by the returned function. */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_POSTGRES_URL) throw new Error('PLINTH_TEST_POSTGRES_URL is not set');
  const name = `plinth_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** STORAGE_URL of the s3rver started by the global setup for the postgres project. */
export function testS3Url(bucketSuffix: string): string | null {
  const endpoint = inject('s3Endpoint' as never) as string | undefined;
  if (!endpoint) return null;
  return `s3://plinth-${bucketSuffix}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&force_path_style=true`;
}

/** Environment for loadConfig() in a test, pointing at this run's backends. */
export async function testEnv(extra: Record<string, string> = {}): Promise<{
  env: Record<string, string>;
  cleanup(): Promise<void>;
}> {
  const dir = tempDir();
  const env: Record<string, string> = {
    PLINTH_DATA_DIR: dir.path,
    PLINTH_SECRET: 'test-secret-0123456789abcdef',
    LOG_LEVEL: 'silent',
    PLINTH_JOB_POLL_MS: '20',
    // The learned segmenter costs seconds per image on a CPU; tests about ingestion, review or export are not
    // about the cut-out's quality. The cut-out's own tests choose `isnet` explicitly.
    PLINTH_SEGMENTER: 'classical',
    // System tools (ffmpeg, chromium, colmap) are found on PATH, as in a real start.
    PATH: process.env.PATH ?? '',
  };
  let drop = async () => {};
  if (TEST_BACKEND === 'postgres') {
    const database = await freshPostgresDatabase();
    env.DATABASE_URL = database.url;
    drop = database.drop;
    if (TEST_REDIS_URL) env.REDIS_URL = TEST_REDIS_URL;
    const s3 = testS3Url(randomBytes(4).toString('hex'));
    if (s3) env.STORAGE_URL = s3;
  }
  Object.assign(env, extra);
  return {
    env,
    async cleanup() {
      await drop().catch(() => {});
      dir.remove();
    },
  };
}
