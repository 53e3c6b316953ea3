import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { differenceHash, selectFrames, selectPathFrames, tinyThumb, type FrameFeatures } from './frame-select.js';
import { MediaError } from '../errors.js';
import { greyForSharpness, laplacianVariance } from '../image/sharpness.js';
import { DEFAULT_VIDEO_TOOLS, ProcessTimeout, probeVideo, runProcess, type VideoTools } from './video-probe.js';

/** How the clip was filmed (the product's `capture.kind`): a turntable spin, or a walk around the product (`auto` is read as one). */
export type VideoCapture = 'auto' | 'turntable' | 'walkaround';

export interface ExtractFramesOptions {
  /** default `auto`: frames for structure from motion */
  capture?: VideoCapture;
  /** default 12 for a turntable, 24 for a walk-around */
  min?: number;
  /** default 24 for a turntable, 60 for a walk-around */
  max?: number;
  /** parent for the scratch directory; default the OS temp dir */
  workDir?: string;
  /** for probing and decoding together; default 120 s */
  timeoutMs?: number;
  /** ffmpeg and ffprobe; default the bare names, found on PATH */
  tools?: VideoTools;
}

/** Frames are downscaled to this longest side: plenty for photogrammetry input, and 4K stays cheap. */
const FRAME_SIDE = 1280;

/** Beyond this, only keyframes are decoded (phones put one every 1–2 s). */
const LONG_CLIP_SECONDS = 90;

/** Scale down (never up) to FRAME_SIDE on the longest side, keeping even dimensions for the encoder. */
const SCALE = `scale=w='if(gte(iw,ih),min(${FRAME_SIDE},iw),-2)':h='if(gte(iw,ih),-2,min(${FRAME_SIDE},ih))'`;

async function features(file: string, index: number): Promise<{ features: FrameFeatures; data: Buffer }> {
  const data = await readFile(file);
  const { grey, width, height } = await greyForSharpness(data);
  return {
    data,
    features: {
      index,
      sharpness: laplacianVariance(grey, width, height),
      hash: differenceHash(grey, width, height),
      tiny: tinyThumb(grey, width, height),
    },
  };
}

/**
 * Frames kept per capture. A turntable's views are at equal angles anyway: 12–24 distinct ones do.
 * A walk-around feeds structure from motion, which needs neighbours that overlap: 24–60, more for a
 * longer path (see `selectPathFrames`).
 */
const FRAME_COUNTS: Record<VideoCapture, { min: number; max: number; candidatesPerFrame: number }> = {
  turntable: { min: 12, max: 24, candidatesPerFrame: 2 },
  walkaround: { min: 24, max: 60, candidatesPerFrame: 3 },
  auto: { min: 24, max: 60, candidatesPerFrame: 3 },
};

/**
 * Sharp stills from a product video, as JPEG buffers in time order: for a turntable, distinct views
 * spread over the clip; for a walk-around (and `auto`), the sharpest frame of each equal stretch of
 * the camera's path. Throws MediaError: 'corrupt_video' (not a readable video), 'no_frames' (nothing usable),
 * 'video_timeout' (decoding took longer than `timeoutMs`).
 */
export async function extractFrames(videoFile: string, opts: ExtractFramesOptions = {}): Promise<Buffer[]> {
  const capture = opts.capture ?? 'auto';
  const counts = FRAME_COUNTS[capture];
  const max = Math.max(1, opts.max ?? counts.max);
  const min = Math.min(max, Math.max(1, opts.min ?? counts.min));
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());

  const scratch = await mkdtemp(join(opts.workDir ?? tmpdir(), 'plinth-frames-'));
  try {
    const tools = opts.tools ?? DEFAULT_VIDEO_TOOLS;
    const info = await probeVideo(videoFile, remaining(), tools);
    // A few candidates per frame wanted, but never more than the clip has frames.
    const wanted = max * counts.candidatesPerFrame;
    const sampleRate = Math.min(wanted / info.duration, info.fps ?? Infinity);
    const result = await runProcess(
      tools.ffmpeg,
      [
        '-nostdin',
        '-hide_banner',
        '-v',
        'error',
        '-protocol_whitelist',
        'file',
        '-f',
        info.demuxer,
        // Long clips: keyframes alone give more than enough candidates and decode many times faster.
        ...(info.duration > LONG_CLIP_SECONDS ? ['-skip_frame', 'nokey'] : []),
        '-i',
        videoFile,
        '-map',
        `0:${info.streamIndex}`,
        '-an',
        '-sn',
        '-dn',
        '-vf',
        `fps=${sampleRate.toFixed(6)},${SCALE}`,
        '-fps_mode',
        'passthrough',
        '-frames:v',
        String(wanted + 2),
        '-q:v',
        '2',
        '-f',
        'image2',
        join(scratch, 'c%04d.jpg'),
      ],
      remaining(),
    );
    const files = (await readdir(scratch)).filter((f) => /^c\d+\.jpg$/.test(f)).sort();
    if (result.code !== 0 && files.length === 0) {
      throw new MediaError('corrupt_video', 'The video could not be decoded.', { cause: result.stderr.trim().slice(-500) });
    }

    const candidates: { features: FrameFeatures; data: Buffer }[] = [];
    for (const [i, name] of files.entries()) {
      try {
        candidates.push(await features(join(scratch, name), i));
      } catch {
        // A frame the decoder half-wrote (damaged stream) is simply not a candidate.
      }
    }
    const described = candidates.map((c) => c.features);
    const chosen = capture === 'turntable' ? selectFrames(described, { min, max }) : selectPathFrames(described, { min, max, durationSeconds: info.duration });
    if (chosen.length === 0) {
      throw new MediaError('no_frames', 'The video has no sharp frames to use.', { candidates: candidates.length });
    }
    const byIndex = new Map(candidates.map((c) => [c.features.index, c.data]));
    return chosen.map((i) => byIndex.get(i)!);
  } catch (err) {
    if (err instanceof ProcessTimeout) {
      throw new MediaError('video_timeout', `The video took longer than ${timeoutMs} ms to process.`, { timeoutMs });
    }
    throw err;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
