import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { toolCapability } from '../src/platform/tools.js';
import { waitFor } from '../src/test/wait.js';
import { ensureBuilt, freshEnv, spawnCli, startServe, tearDown } from './cli-harness.js';

/**
 * A worker (`plinth serve` with its embedded worker, `plinth worker`) launches its renderer's Chromium as it
 * starts, before any job asks for a render, and closes it when it stops: a started and stopped server leaves no
 * browser behind, even when it is stopped while the browser is still starting.
 */
const chromium = await toolCapability(loadConfig({ PATH: process.env.PATH, PLINTH_CHROMIUM_PATH: process.env.PLINTH_CHROMIUM_PATH }).tools, 'chromium');
if (!chromium.available) console.log('\n[plinth] renderer warm-up tests skipped: no Chromium found (set PLINTH_CHROMIUM_PATH).\n');

beforeAll(() => ensureBuilt(), 180_000);
afterAll(tearDown, 30_000);

interface Proc {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
  comm: string;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // comm is in parentheses and may hold spaces; the fields after it are space-separated.
      const close = stat.lastIndexOf(')');
      const [state, ppid, pgrp] = stat.slice(close + 2).split(' ');
      out.push({ pid: Number(name), ppid: Number(ppid), pgrp: Number(pgrp), state: state!, comm: stat.slice(stat.indexOf('(') + 1, close) });
    } catch {
      // gone between the listing and the read
    }
  }
  return out;
}

/** The browsers `pid` launched: its child processes named like Chromium (each leads a process group of its own). */
function browsersOf(pid: number): number[] {
  return processes()
    .filter((p) => p.ppid === pid && /chrom/i.test(p.comm))
    .map((p) => p.pid);
}

/** Live processes (zombies count as gone) in the process groups the browsers lead. */
function leftInGroups(groups: number[]): Proc[] {
  return processes().filter((p) => groups.includes(p.pgrp) && p.state !== 'Z');
}

describe.skipIf(!chromium.available)('the renderer is warmed when a worker starts, and closed when it stops', { timeout: 240_000 }, () => {
  it('plinth serve launches Chromium after it is ready, before any render; SIGTERM leaves no browser process', async () => {
    const server = await startServe(await freshEnv());
    // Ready first: /v1/health answers while the browser warms.
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    await waitFor('the renderer warm-up to finish', () => server.proc.out.stdout.includes('"msg":"renderer warmed"'), 180_000, 100);
    expect(server.proc.out.stdout).toContain('"msg":"media sandbox warmed"');
    // No product exists, so nothing has asked for a render: the browser is the warm-up's.
    const browsers = browsersOf(server.proc.child.pid!);
    expect(browsers).toHaveLength(1);
    expect(leftInGroups(browsers).length).toBeGreaterThan(1); // the browser and its helpers (zygote, GPU, renderer)

    expect(await server.stop()).toMatchObject({ code: 0, signal: null });
    await waitFor('every process of the browser to end', () => leftInGroups(browsers).length === 0, 10_000, 100);
  });

  it('plinth worker stopped while its browser is still starting leaves no browser process', async () => {
    const env = await freshEnv();
    const worker = spawnCli(['worker'], { ...env, LOG_LEVEL: 'info' });
    await waitFor('the worker to start', () => worker.out.stdout.includes('"msg":"plinth worker is running"'), 60_000, 50);
    const browsers = await waitFor('the worker to launch its browser', () => {
      const found = browsersOf(worker.child.pid!);
      return found.length > 0 ? found : null;
    }, 60_000, 20);
    expect(worker.out.stdout).not.toContain('"msg":"renderer warmed"');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    await waitFor('every process of the browser to end', () => leftInGroups(browsers).length === 0, 10_000, 100);
    expect(worker.out.stdout).not.toContain('warm-up failed');
  });
});
