import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharpness } from '../image/sharpness.js';
import { extractFrames } from './video-frames.js';

// A walk-around filmed by a camera panning over a wide scene at a known speed, with a burst of shake
// blur at the start of every second: where each kept frame was taken is recovered by locating it in
// the scene, so the test knows its time and whether it is blurred without trusting the code under test.

const run = promisify(execFile);
const W = 320;
const H = 240;
const FPS = 25;
/** pixels per second, a whole number of pixels per frame */
const SPEED = 100;
const BLUR = "gblur=sigma=6:enable='lt(mod(t\\,1)\\,0.2)'";
let dir: string;
let scene: { data: Buffer; width: number };

/** Deterministic blobs of many sizes and greys over a smooth ramp: texture at every scale. */
async function makeScene(width: number): Promise<string> {
  const data = Buffer.alloc(width * H);
  for (let y = 0; y < H; y++) for (let x = 0; x < width; x++) data[y * width + x] = 90 + 60 * Math.sin(x / 57) * Math.cos(y / 41);
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let k = 0; k < width / 4; k++) {
    const cx = random() * width;
    const cy = random() * H;
    const r = 6 + random() * 40;
    const grey = random() < 0.5 ? 20 + random() * 40 : 190 + random() * 60;
    for (let y = Math.max(0, Math.floor(cy - r)); y < Math.min(H, cy + r); y++) {
      for (let x = Math.max(0, Math.floor(cx - r)); x < Math.min(width, cx + r); x++) if ((x - cx) ** 2 + (y - cy) ** 2 < r * r) data[y * width + x] = grey;
    }
  }
  scene = { data, width };
  const file = join(dir, `scene-${width}.png`);
  await sharp(data, { raw: { width, height: H, channels: 1 } }).png().toFile(file);
  return file;
}

/** `panSeconds` of panning, then `stillSeconds` standing at the end of the pan. */
async function walkaround(name: string, panSeconds: number, stillSeconds = 0): Promise<string> {
  const png = await makeScene(W + SPEED * panSeconds);
  const file = join(dir, name);
  const x = `min(t*${SPEED}\\,${SPEED * panSeconds})`;
  await run('/usr/bin/ffmpeg', [
    '-v', 'error', '-y', '-loop', '1', '-framerate', String(FPS), '-t', String(panSeconds + stillSeconds), '-i', png,
    '-vf', `crop=${W}:${H}:x='${x}':y=0,${BLUR}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '16', '-pix_fmt', 'yuv420p', file,
  ]);
  return file;
}

async function grey(frame: Buffer, width: number, height: number): Promise<Buffer> {
  return sharp(frame).greyscale().resize(width, height, { fit: 'fill' }).raw().toBuffer();
}

function difference(frame: Buffer, fw: number, fh: number, at: number, source: Buffer, sw: number, step: number): number {
  let sum = 0;
  for (let y = 0; y < fh; y += step) for (let x = 0; x < fw; x += step) sum += Math.abs(frame[y * fw + x] - source[y * sw + x + at]);
  return sum;
}

/** The frame's horizontal offset in the scene: coarse search at quarter size, then refined at full size. */
async function locate(frame: Buffer): Promise<number> {
  const small = await grey(frame, W / 4, H / 4);
  const sceneSmall = await sharp(scene.data, { raw: { width: scene.width, height: H, channels: 1 } }).resize(scene.width / 4, H / 4, { fit: 'fill' }).greyscale().raw().toBuffer();
  let best = 0;
  for (let at = 0, min = Infinity; at <= (scene.width - W) / 4; at++) {
    const d = difference(small, W / 4, H / 4, at, sceneSmall, scene.width / 4, 1);
    if (d < min) [min, best] = [d, at * 4];
  }
  const full = await grey(frame, W, H);
  let refined = best;
  for (let at = Math.max(0, best - 6), min = Infinity; at <= Math.min(scene.width - W, best + 6); at++) {
    const d = difference(full, W, H, at, scene.data, scene.width, 2);
    if (d < min) [min, refined] = [d, at];
  }
  return refined;
}

/** A kept frame's sharpness against the same view of the scene, unblurred and through the same codec. */
async function crispness(frame: Buffer, at: number): Promise<number> {
  const reference = await sharp(scene.data, { raw: { width: scene.width, height: H, channels: 1 } }).extract({ left: at, top: 0, width: W, height: H }).jpeg({ quality: 95 }).toBuffer();
  return (await sharpness(frame)) / (await sharpness(reference));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plinth-walkaround-'));
}, 30_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('walk-around video', { timeout: 60_000 }, () => {
  it('keeps 24–60 sharp frames spread over the whole path, avoiding the shaken ones', async () => {
    const file = await walkaround('walk-12s.mp4', 12);
    const frames = await extractFrames(file, { capture: 'walkaround' });
    expect(frames.length).toBeGreaterThanOrEqual(24);
    expect(frames.length).toBeLessThanOrEqual(60);

    const times: number[] = [];
    for (const f of frames) {
      const at = await locate(f);
      times.push(at / SPEED);
      expect(await crispness(f, at), `frame at ${at / SPEED} s`).toBeGreaterThan(0.5);
    }
    // In time order, from the start of the path to its end, with no stretch left uncovered.
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[0]).toBeLessThan(0.75);
    expect(times.at(-1)!).toBeGreaterThan(11.25);
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    console.log(`walk-around 12 s: ${frames.length} frames, ${times[0]}–${times.at(-1)} s, largest gap ${Math.max(...gaps).toFixed(2)} s`);
    expect(Math.max(...gaps)).toBeLessThan((2.5 * 12) / frames.length);
  });

  it('gives the shaken frames a sharpness the check above would catch', async () => {
    // Guards the test itself: a frame in the blur burst must measure as blurred.
    const file = await walkaround('probe.mp4', 2);
    const still = join(dir, 'blurred.png');
    await run('/usr/bin/ffmpeg', ['-v', 'error', '-y', '-ss', '1.08', '-i', file, '-frames:v', '1', still]);
    const frame = await sharp(still).toBuffer();
    expect(await crispness(frame, await locate(frame))).toBeLessThan(0.2);
  });

  it('keeps more frames of a longer path, and one frame of the time the camera stood still', async () => {
    const short = await extractFrames(await walkaround('walk-8s.mp4', 8), { capture: 'walkaround' });
    const long = await extractFrames(await walkaround('walk-20s.mp4', 20), { capture: 'auto' });
    expect(short.length).toBeGreaterThanOrEqual(24);
    expect(long.length).toBeLessThanOrEqual(60);
    expect(long.length).toBeGreaterThan(short.length + 10);
    console.log(`walk-around 8 s: ${short.length} frames; 20 s: ${long.length} frames`);

    const paused = await extractFrames(await walkaround('walk-pause.mp4', 6, 6), { capture: 'walkaround' });
    expect(paused.length).toBeGreaterThanOrEqual(24);
    // Everything after the pan is one view: at most one frame of it (the pan's last view is 6 s in).
    const last = SPEED * 6;
    const positions = await Promise.all(paused.map(locate));
    expect(positions.filter((at) => at >= last - 1).length).toBeLessThanOrEqual(1);
  });

  it('keeps 12–24 frames of the same footage filmed on a turntable', async () => {
    const frames = await extractFrames(await walkaround('turntable.mp4', 12), { capture: 'turntable' });
    expect(frames.length).toBeGreaterThanOrEqual(12);
    expect(frames.length).toBeLessThanOrEqual(24);
  });
});
