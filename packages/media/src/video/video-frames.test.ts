import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejection } from '../util/rejection.test-support.js';
import { sharpness } from '../image/sharpness.js';
import { extractFrames } from './video-frames.js';

const run = promisify(execFile);
let dir: string;

async function ffmpeg(args: string[], out: string): Promise<string> {
  const file = join(dir, out);
  await run('/usr/bin/ffmpeg', ['-v', 'error', '-y', ...args, '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '18', '-pix_fmt', 'yuv420p', file]);
  return file;
}


/** 32x32 grey thumbnail, independent of the module's own hashing. */
async function thumb(frame: Buffer): Promise<Buffer> {
  return sharp(frame).resize(32, 32, { fit: 'fill' }).greyscale().raw().toBuffer();
}

function mad(a: Buffer, b: Buffer): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i] - b[i]);
  return s / a.length;
}

async function meanRgb(frame: Buffer): Promise<number[]> {
  const stats = await sharp(frame).stats();
  return stats.channels.slice(0, 3).map((c) => c.mean);
}

let mixed: string;
let staticRef: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plinth-video-test-'));
  // 4 s of a rotating test card (sharp, always changing), 1.5 s of the same turned red and heavily
  // blurred, 1.5 s of static colour bars (sharp, but every frame identical).
  mixed = await ffmpeg(
    [
      '-filter_complex',
      'testsrc2=s=320x240:r=25:d=4,rotate=a=t*0.8:c=gray[a];' +
        'testsrc2=s=320x240:r=25:d=1.5,rotate=a=3.2+t*0.8:c=gray,colorchannelmixer=rr=1:gg=0.2:bb=0.2,gblur=sigma=6[b];' +
        'smptebars=s=320x240:r=25:d=1.5[c];[a][b][c]concat=n=3:v=1:a=0[v]',
      '-map',
      '[v]',
    ],
    'mixed.mp4',
  );
  const ref = join(dir, 'bars.png');
  await run('/usr/bin/ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'smptebars=s=320x240:d=0.1', '-frames:v', '1', ref]);
  staticRef = await thumb(await readFile(ref));
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('extractFrames', { timeout: 30_000 }, () => {
  it('returns 12–24 sharp, distinct frames of a turntable clip, skipping blur and collapsing a static stretch', async () => {
    const started = performance.now();
    const frames = await extractFrames(mixed, { capture: 'turntable' });
    console.log(`extractFrames 7 s 320x240 clip: ${frames.length} frames in ${(performance.now() - started).toFixed(0)} ms`);

    expect(frames.length).toBeGreaterThanOrEqual(12);
    expect(frames.length).toBeLessThanOrEqual(24);
    const thumbs = await Promise.all(frames.map(thumb));
    for (let i = 0; i < thumbs.length; i++) {
      for (let j = i + 1; j < thumbs.length; j++) expect(mad(thumbs[i], thumbs[j])).toBeGreaterThan(3);
    }
    // The blurred stretch is tinted red: none of it may survive.
    const colours = await Promise.all(frames.map(meanRgb));
    expect(colours.filter(([r, g]) => r > 90 && g < 60)).toHaveLength(0);
    // The static bars are one view: exactly one frame of them.
    expect(thumbs.filter((t) => mad(t, staticRef) < 4)).toHaveLength(1);
    for (const f of frames) {
      const meta = await sharp(f).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 240]);
      expect(await sharpness(f)).toBeGreaterThan(50);
    }
  });

  it('cleans its scratch files from the work dir', async () => {
    const work = await mkdtemp(join(dir, 'work-'));
    await extractFrames(mixed, { workDir: work, min: 4, max: 6 });
    expect(await readdir(work)).toEqual([]);
  });

  it('honours min and max', async () => {
    const frames = await extractFrames(mixed, { min: 3, max: 5 });
    expect(frames.length).toBe(5);
  });

  it('downscales large footage to 1280 on the longest side and reads a clip without a stated duration', async () => {
    // Matroska written to a pipe cannot go back to record its duration.
    const { stdout } = await run(
      '/usr/bin/ffmpeg',
      ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=s=1600x900:r=8:d=1.5', '-c:v', 'libx264', '-preset', 'ultrafast', '-f', 'matroska', 'pipe:1'],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
    );
    const file = join(dir, 'piped.mkv');
    await writeFile(file, stdout);
    const frames = await extractFrames(file, { min: 4, max: 8 });
    expect(frames.length).toBeGreaterThanOrEqual(1);
    expect(frames.length).toBeLessThanOrEqual(8);
    for (const f of frames) {
      const meta = await sharp(f).metadata();
      expect([meta.width, meta.height]).toEqual([1280, 720]);
    }
  });

  it('samples a long clip from its keyframes', async () => {
    const long = await ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=s=160x120:r=5:d=120,rotate=a=t*0.05:c=gray', '-g', '25'], 'long.mp4');
    const started = performance.now();
    const frames = await extractFrames(long, { capture: 'turntable' });
    console.log(`extractFrames 120 s clip: ${frames.length} frames in ${(performance.now() - started).toFixed(0)} ms`);
    expect(frames.length).toBeGreaterThanOrEqual(12);
    expect(frames.length).toBeLessThanOrEqual(24);
  });

  it('returns fewer than min when the clip genuinely has fewer distinct frames', async () => {
    const still = await ffmpeg(['-f', 'lavfi', '-i', 'smptebars=s=320x240:r=25:d=3'], 'still.mp4');
    expect(await extractFrames(still, { capture: 'turntable' })).toHaveLength(1);
    expect(await extractFrames(still, { capture: 'walkaround' })).toHaveLength(1);
  });

  it("refuses a clip with nothing usable as 'no_frames'", async () => {
    const black = await ffmpeg(['-f', 'lavfi', '-i', 'color=c=black:s=320x240:r=25:d=2'], 'black.mp4');
    expect((await rejection(extractFrames(black))).reason).toBe('no_frames');
  });

  it("refuses random bytes, an image and a truncated MP4 as 'corrupt_video'", async () => {
    const random = join(dir, 'random.mp4');
    await writeFile(random, Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 2654435761 + 7) & 255)));
    const png = join(dir, 'picture.mp4');
    await writeFile(png, await sharp({ create: { width: 64, height: 64, channels: 3, background: '#f00' } }).png().toBuffer());
    const truncated = join(dir, 'truncated.mp4');
    await writeFile(truncated, (await readFile(mixed)).subarray(0, 4096));
    const empty = join(dir, 'empty.mp4');
    await writeFile(empty, Buffer.alloc(0));
    for (const file of [random, png, truncated, empty]) {
      expect((await rejection(extractFrames(file))).reason).toBe('corrupt_video');
    }
  });

  it("stops a slow decode at the deadline as 'video_timeout' and still cleans up", async () => {
    const work = await mkdtemp(join(dir, 'slow-'));
    const err = await rejection(extractFrames(mixed, { timeoutMs: 5, workDir: work }));
    expect(err.reason).toBe('video_timeout');
    expect(await readdir(work)).toEqual([]);
  });
});
