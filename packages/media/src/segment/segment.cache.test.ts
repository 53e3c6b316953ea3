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
});
