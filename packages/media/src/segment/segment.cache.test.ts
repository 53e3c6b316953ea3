import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { processImage } from '../image/image-pipeline.js';
import { chooseSegmenter } from './segment.js';
import { SCENES, makeScene } from './synthetic-scenes.js';

/**
 * A photo is segmented once per segmenter version: the same bytes again (a second product made from
 * the same photo, or a retried job in the same worker child) reuse the cut-out; new bytes, or a
 * segmenter whose masks may differ, segment afresh.
 */
async function photo(scene = SCENES[0], quality = 90): Promise<Buffer> {
  const s = makeScene(scene);
  return sharp(s.image.data, { raw: { width: s.image.width, height: s.image.height, channels: 3 } }).jpeg({ quality }).toBuffer();
}

describe('cut-out cache', () => {
  it('segments the same bytes once, and again only for new bytes or a new segmenter version', { timeout: 60_000 }, async () => {
    const classical = chooseSegmenter({ kind: 'classical' });
    const calls = vi.spyOn(classical, 'probability');
    const bytes = await photo();

    const first = await processImage(bytes, { segmenter: { kind: 'classical' } });
    expect(calls).toHaveBeenCalledTimes(1);
    // A second product with the same photo: a copy of the bytes, not the same Buffer.
    const second = await processImage(Buffer.from(bytes), { segmenter: { kind: 'classical' } });
    expect(calls).toHaveBeenCalledTimes(1);
    expect(second.mask.equals(first.mask)).toBe(true);
    expect(second.analysis.cutout).toEqual(first.analysis.cutout);

    // One byte of difference is another photo.
    await processImage(await photo(SCENES[0], 89), { segmenter: { kind: 'classical' } });
    expect(calls).toHaveBeenCalledTimes(2);

    // The same photo through a segmenter whose version changed (a new release of its masks).
    const released = chooseSegmenter({ kind: 'classical', threads: 1 });
    expect(released).not.toBe(classical);
    Object.defineProperty(released, 'version', { value: `${classical.version}-next` });
    const releasedCalls = vi.spyOn(released, 'probability');
    await processImage(bytes, { segmenter: { kind: 'classical', threads: 1 } });
    expect(releasedCalls).toHaveBeenCalledTimes(1);
    expect(calls).toHaveBeenCalledTimes(2);
    calls.mockRestore();
    releasedCalls.mockRestore();
  });

  it('shares cut-outs between worker children through the cache directory', { timeout: 60_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plinth-cutouts-'));
    try {
      // Each "child" is a fresh copy of the modules: its own in-process cache and its own segmenter.
      const child = async (cutoutCacheDir?: string) => {
        vi.resetModules();
        const segment = await import('./segment.js');
        const pipeline = await import('../image/image-pipeline.js');
        const calls = vi.spyOn(segment.chooseSegmenter({ kind: 'classical' }), 'probability');
        return { calls, process: (bytes: Buffer) => pipeline.processImage(bytes, { segmenter: { kind: 'classical' }, cutoutCacheDir }) };
      };
      const bytes = await photo(SCENES[1]);
      const one = await child(dir);
      const first = await one.process(bytes);
      expect(one.calls).toHaveBeenCalledTimes(1);
      expect(await readdir(dir)).toHaveLength(2); // the mask and its description

      const two = await child(dir);
      const second = await two.process(Buffer.from(bytes));
      expect(two.calls).toHaveBeenCalledTimes(0);
      expect(second.mask.equals(first.mask)).toBe(true);
      expect(second.analysis.cutout).toEqual(first.analysis.cutout);

      // Without the shared directory a fresh child segments again: the directory is what saved it.
      const three = await child();
      await three.process(bytes);
      expect(three.calls).toHaveBeenCalledTimes(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
      vi.resetModules();
    }
  });
});
