import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { closeDeps, createDeps, type Deps } from '../../deps.js';
import { createLogger } from '../../logger.js';
import { tempDir } from '../../test/env.js';

/**
 * What Plinth writes at rest is readable by its own user only: the data directory is created 0700,
 * the SQLite database (and its -wal/-shm), the generated signing secret and mailed messages 0600.
 * Checked on the embedded defaults, whatever the backend of this run: these are the files an
 * operator gets from `plinth serve` on a fresh directory.
 */
const dir = tempDir();
const dataDir = join(dir.path, 'data');
let deps: Deps;
const mode = (path: string) => statSync(path).mode & 0o777;

beforeAll(async () => {
  const config = loadConfig({ PLINTH_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  deps = await createDeps(config, createLogger('silent'));
  await deps.database.db.selectFrom('organizations').select('id').execute();
  await deps.mailer.send({ to: 'ops@example.test', subject: 'hello', text: 'body' });
});
afterAll(async () => {
  await closeDeps(deps);
  dir.remove();
});

describe('files at rest', () => {
  it('the data directory is 0700', () => {
    expect(mode(dataDir)).toBe(0o700);
  });

  it('the database and its WAL files are 0600', () => {
    const db = join(dataDir, 'plinth.db');
    expect(mode(db)).toBe(0o600);
    for (const extra of ['-wal', '-shm']) if (existsSync(db + extra)) expect(mode(db + extra)).toBe(0o600);
    expect(existsSync(db + '-wal')).toBe(true);
  });

  it('the generated secret is 0600', () => {
    expect(mode(join(dataDir, 'secret'))).toBe(0o600);
  });

  it('the outbox and its messages are readable by the owner only', async () => {
    const { readdirSync } = await import('node:fs');
    const outbox = join(dataDir, 'outbox');
    expect(mode(outbox)).toBe(0o700);
    const files = readdirSync(outbox);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(mode(join(outbox, f))).toBe(0o600);
  });
});
