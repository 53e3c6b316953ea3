import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { differenceHash, selectFrames, tinyThumb, type FrameFeatures } from './frame-select.js';
import { MediaError } from '../errors.js';
import { greyForSharpness, laplacianVariance } from '../image/sharpness.js';
import { DEFAULT_VIDEO_TOOLS, ProcessTimeout, probeVideo, runProcess, type VideoTools } from './video-probe.js';

export interface ExtractFramesOptions {
  /** default 12 */
  min?: number;
  /** default 24 */
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
 * Sharp, distinct, time-spread stills from a product video, as JPEG buffers in time order.
 * Throws MediaError: 'corrupt_video' (not a readable video), 'no_frames' (nothing usable),
 * 'video_timeout' (decoding took longer than `timeoutMs`).
 */
export async function extractFrames(videoFile: string, opts: ExtractFramesOptions = {}): Promise<Buffer[]> {
  const max = Math.max(1, opts.max ?? 24);
  const min = Math.min(max, Math.max(1, opts.min ?? 12));
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());

  const scratch = await mkdtemp(join(opts.workDir ?? tmpdir(), 'plinth-frames-'));
  try {
    const tools = opts.tools ?? DEFAULT_VIDEO_TOOLS;
    const info = await probeVideo(videoFile, remaining(), tools);
    // Twice as many candidates as wanted, but never more than the clip has frames.
    const wanted = max * 2;
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
    const chosen = selectFrames(
      candidates.map((c) => c.features),
      { min, max },
    );
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
