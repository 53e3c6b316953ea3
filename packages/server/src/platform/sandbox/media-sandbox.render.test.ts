import { existsSync } from 'node:fs';
import { resolveBudgets, DEFAULT_DELIVERY_BUDGETS } from '@plinth/media';
import { boxDocument, glbBytes, scanDocument } from '@plinth/media/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { childEntry, MediaSandbox } from './media-sandbox.js';

// Renders run on the worker's one warm browser, not in a child; the sandbox's time limit still bounds each.
const entry = childEntry();
const chromiumPath = process.env.PLINTH_CHROMIUM_PATH || '/usr/bin/chromium';
if (!entry) console.log('\n[plinth] media sandbox tests skipped: run `npm run build -w @plinth/media` first (they run its compiled child).\n');
if (!existsSync(chromiumPath)) console.log(`\n[plinth] render sandbox tests skipped: no Chromium at ${chromiumPath}.\n`);

const sandboxes: MediaSandbox[] = [];
afterAll(() => Promise.all(sandboxes.map((s) => s.close())));

describe.skipIf(!entry || !existsSync(chromiumPath))('media sandbox: renders', () => {
  it('a render over the time limit fails with processing_limit; the next render gets a browser and succeeds', async () => {
    const sandbox = new MediaSandbox(entry!, { memoryMb: 512, timeoutS: 1, stackKb: 2048, children: 1 }, createLogger('silent'));
    sandboxes.push(sandbox);
    const glb = await glbBytes(boxDocument({ meshSize: [0.3, 0.2, 0.1] }).doc);
    const err = await sandbox.run('render.turntable', { glb, options: { chromiumPath, views: 360, size: 2048 } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'MediaError', reason: 'processing_limit', details: { limit: 'time', timeout_s: 1 } });

    const roomy = new MediaSandbox(entry!, { memoryMb: 512, timeoutS: 120, stackKb: 2048, children: 1 }, createLogger('silent'));
    sandboxes.push(roomy);
    const pngs = await roomy.run('render.turntable', { glb, options: { chromiumPath, views: 2, size: 64 } });
    expect(pngs).toHaveLength(2);
    expect(pngs[0]!.subarray(1, 4).toString('latin1')).toBe('PNG');
    // No child was forked for either: renders are not child work.
    expect(sandbox.pids()).toEqual([]);
    expect(roomy.pids()).toEqual([]);
  });

  it("model.deliver draws its fidelity views with the caller's renderViews (the worker's warm browser), the master by reference", async () => {
    const sandbox = new MediaSandbox(entry!, { memoryMb: 1024, timeoutS: 300, stackKb: 2048, children: 1 }, createLogger('silent'));
    sandboxes.push(sandbox);
    const master = await glbBytes(await scanDocument({ rings: 40, segments: 40, bands: 1, textureSize: 256 }));
    const asked: { glb: 'master' | number; views: number; size: number }[] = [];
    const renderViews = async (glb: Buffer | null, views: number, size: number) => {
      asked.push({ glb: glb === null ? 'master' : glb.byteLength, views, size });
      return sandbox.run('render.turntable', { glb: glb ?? master, options: { chromiumPath, views, size } });
    };
    const budgets = resolveBudgets(DEFAULT_DELIVERY_BUDGETS, { web: { maxTriangles: 1_000, maxTexturePx: 128 } });
    const r = await sandbox.run('model.deliver', { master, budgets, check: true }, { renderViews });
    expect(r.web.triangles).toBeLessThanOrEqual(1_000);
    expect(r.web.ssim).toBeGreaterThanOrEqual(0.95);
    expect(r.web.ssim).toBeLessThan(1);
    expect(r.mobile.passthrough).toBe(true);
    // The master once, by reference; then each candidate, sent as its own bytes; 8 views each.
    expect(asked[0]).toEqual({ glb: 'master', views: 8, size: 384 });
    expect(asked.filter((a) => a.glb === 'master')).toHaveLength(1);
    expect(asked.slice(1).map((a) => a.glb)).toContain(r.web.bytes);
    expect(r.renders).toBe(asked.length);
    // Unchecked (no Chromium), nothing lighter is made: the master is delivered over budget and nothing is drawn.
    const before = asked.length;
    const unchecked = await sandbox.run('model.deliver', { master, budgets, check: false }, { renderViews });
    expect(unchecked.web).toMatchObject({ passthrough: true, overBudget: true });
    expect(asked).toHaveLength(before);
  }, 300_000);
});
