import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { childEntry, MediaSandbox } from './media-sandbox.js';

const entry = childEntry();
if (!entry) console.log('\n[plinth] media sandbox tests skipped: run `npm run build -w @plinth/media` first (they run its compiled child).\n');

const sandboxes: MediaSandbox[] = [];
const make = (limits: { memoryMb?: number; timeoutS?: number; children?: number } = {}) => {
  const s = new MediaSandbox(entry!, { memoryMb: 512, timeoutS: 60, stackKb: 2048, children: 1, ...limits }, createLogger('silent'));
  sandboxes.push(s);
  return s;
};
afterAll(() => Promise.all(sandboxes.map((s) => s.close())));

describe.skipIf(!entry)('media sandbox: a child that dies fails only its call', () => {
  it('a child killed mid-call fails it with processing_limit, and the next call gets a fresh child', async () => {
    const sandbox = make();
    const first = await sandbox.run('sandbox.probe', {});
    const running = sandbox.run('sandbox.probe', { spinMs: 20_000 });
    process.kill(first.pid, 'SIGKILL');
    await expect(running).rejects.toMatchObject({ name: 'MediaError', reason: 'processing_limit' });
    const next = await sandbox.run('sandbox.probe', {});
    expect(next.pid).not.toBe(first.pid);
  });

  it('a child over its memory cap is killed with processing_limit, and the next call runs', async () => {
    const sandbox = make({ memoryMb: 256 });
    const err = await sandbox.run('sandbox.probe', { allocateMb: 600 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'MediaError', reason: 'processing_limit', details: { limit: 'memory', memory_mb: 256 } });
    expect((await sandbox.run('sandbox.probe', { echo: Buffer.from('ok') })).echo?.toString()).toBe('ok');
  });

  it('a call over its time limit is killed with processing_limit', async () => {
    const sandbox = make({ timeoutS: 1 });
    const err = await sandbox.run('sandbox.probe', { spinMs: 30_000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'MediaError', reason: 'processing_limit', details: { limit: 'time', timeout_s: 1 } });
    expect((await sandbox.run('sandbox.probe', {})).pid).toBeGreaterThan(0);
  });

  it('calls beyond the pool wait for a free child instead of failing', async () => {
    const sandbox = make({ children: 2 });
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => sandbox.run('sandbox.probe', { echo: Buffer.from(String(i)) })));
    expect(results.map((r) => r.echo?.toString())).toEqual(['0', '1', '2', '3', '4']);
    expect(new Set(results.map((r) => r.pid)).size).toBeLessThanOrEqual(2);
  });
});
