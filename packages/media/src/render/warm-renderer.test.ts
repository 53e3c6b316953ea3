import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { boxDocument, glbBytes } from '../gltf/model-fixtures.test-support.js';
import { WarmRenderer, type RenderJob } from './warm-renderer.js';

const chromiumPath = process.env.PLINTH_CHROMIUM_PATH || '/usr/bin/chromium';
const job: RenderJob = { chromiumPath, views: 1, size: 64, elevationDeg: 15, timeoutMs: 60_000, environment: false };

/** A box of one flat colour, so a render shows which model the page drew. */
async function box(rgb: [number, number, number]): Promise<Buffer> {
  const { doc, material } = boxDocument({ meshSize: [1, 1, 1] });
  material.setBaseColorFactor([...rgb, 1]);
  return glbBytes(doc);
}

/** The colour at the centre of a render. */
async function centre(png: Buffer): Promise<number[]> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const at = (info.height / 2) * info.width * info.channels + (info.width / 2) * info.channels;
  return [...data.subarray(at, at + info.channels)];
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Chromium processes `pid` started (zombies, already ended, left out). */
function browsersOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(ppid) === pid && state !== 'Z' && /chrom/i.test(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))) ? [Number(name)] : [];
      } catch {
        return [];
      }
    });
}

let renderer: WarmRenderer | null = null;
afterEach(async () => {
  await renderer?.close();
  renderer = null;
});

describe.skipIf(!existsSync(chromiumPath))('the warm renderer', () => {
  it('keeps one browser and one page across renders, each render showing its own model', async () => {
    renderer = new WarmRenderer();
    const [red] = await renderer.render(await box([1, 0, 0]), job);
    const pid = await renderer.browserPid();
    const [blue] = await renderer.render(await box([0, 0, 1]), job);
    expect(await renderer.browserPid()).toBe(pid);
    expect(renderer.launches).toBe(1);
    const [r1, , b1] = await centre(red!);
    const [r2, , b2] = await centre(blue!);
    expect(r1).toBeGreaterThan(b1! + 50);
    expect(b2).toBeGreaterThan(r2! + 50);
  });

  it('relaunches after its browser crashed, and after its quota of renders', async () => {
    renderer = new WarmRenderer(2);
    const glb = await box([0, 1, 0]);
    await renderer.render(glb, job);
    process.kill((await renderer.browserPid())!, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await renderer.render(glb, job);
    expect(renderer.launches).toBe(2);
    // The second render of that browser is its last: it is closed, and the next render launches another.
    await renderer.render(glb, job);
    expect(await renderer.browserPid()).toBeNull();
    await renderer.render(glb, job);
    expect(renderer.launches).toBe(3);
  });

  it('relaunches a browser that holds more than the memory limit after a render', async () => {
    renderer = new WarmRenderer();
    const glb = await box([0, 0, 1]);
    await renderer.render(glb, { ...job, maxMemoryMb: 100_000 });
    expect(await renderer.browserPid()).not.toBeNull();
    // No browser fits in 1 MB: it is closed after the render, and the next one launches another.
    await renderer.render(glb, { ...job, maxMemoryMb: 1 });
    expect(await renderer.browserPid()).toBeNull();
    await renderer.render(glb, job);
    expect(renderer.launches).toBe(2);
  });

  it('a model that fails costs the page, not the browser; close() ends the browser', async () => {
    renderer = new WarmRenderer();
    await expect(renderer.render(Buffer.from('not a GLB'), job)).rejects.toThrow(/GLB/);
    const [png] = await renderer.render(await box([1, 1, 0]), job);
    expect(png!.length).toBeGreaterThan(0);
    expect(renderer.launches).toBe(1);
    const pid = (await renderer.browserPid())!;
    await renderer.close();
    expect(alive(pid)).toBe(false);
    await expect(renderer.render(await box([1, 1, 0]), job)).rejects.toThrow(/closed/);
  });

  it('warm() launches the browser before any render, and the first render uses it; close() ends it', async () => {
    renderer = new WarmRenderer();
    expect(await renderer.browserPid()).toBeNull();
    await renderer.warm({ ...job, environment: true });
    const pid = (await renderer.browserPid())!;
    expect(pid).not.toBeNull();
    expect(alive(pid)).toBe(true);
    const [red] = await renderer.render(await box([1, 0, 0]), { ...job, environment: true });
    expect(renderer.launches).toBe(1);
    expect(await renderer.browserPid()).toBe(pid);
    // The warm-up's own model is not what the render shows.
    const [r, g, b] = await centre(red!);
    expect(r).toBeGreaterThan(Math.max(g!, b!) + 50);
    await renderer.close();
    expect(alive(pid)).toBe(false);
  });

  it("switches playwright's zones off once no render is queued: no promise hooks left on for the process", async () => {
    const zones = () =>
      (createRequire(import.meta.url)('playwright-core/lib/coreBundle') as { utils: { currentZone(): { _asyncLocalStorage: { enabled: boolean } } } }).utils.currentZone()
        ._asyncLocalStorage;
    renderer = new WarmRenderer();
    const first = renderer.render(await box([0, 1, 0]), job);
    const second = renderer.render(await box([0, 0, 1]), job);
    await first;
    // The second render is still queued, and playwright is in use.
    expect(zones().enabled).toBe(true);
    await second;
    expect(zones().enabled).toBe(false);
  });

  it('close() during a warm-up ends the browser being launched, and the warm-up fails', async () => {
    renderer = new WarmRenderer();
    const warming = renderer.warm(job);
    warming.catch(() => undefined);
    // The close comes once the browser process exists, while it starts or draws the warm-up model.
    let launched: number[] = [];
    for (const deadline = Date.now() + 60_000; launched.length === 0 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      launched = browsersOf(process.pid);
    }
    expect(launched).toHaveLength(1);
    await renderer.close();
    await expect(warming).rejects.toThrow();
    expect(await renderer.browserPid()).toBeNull();
    expect(browsersOf(process.pid)).toEqual([]);
    expect(alive(launched[0]!)).toBe(false);
  });
});
