import { open } from 'node:fs/promises';
import { MediaError } from '../errors.js';
import { killGroup, spawnInGroup } from '../process-group.js';

/** Where ffmpeg and ffprobe live. The caller decides (the server's config); the bare names are looked up on PATH. */
export interface VideoTools {
  ffmpeg: string;
  ffprobe: string;
}

export const DEFAULT_VIDEO_TOOLS: VideoTools = Object.freeze({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe' });

export class ProcessTimeout extends Error {
  constructor(readonly command: string, readonly timeoutMs: number) {
    super(`${command} did not finish within ${timeoutMs} ms`);
  }
}

export interface ProcessResult {
  code: number | null;
  stdout: string;
  /** the tail only: ffmpeg can be chatty and we only need the last words */
  stderr: string;
}

const MAX_STDOUT = 4 * 1024 * 1024;
const MAX_STDERR = 16 * 1024;

/**
 * Spawn without a shell (arguments never pass through an interpreter) and SIGKILL on deadline or
 * abort: a hostile file must not be able to keep a decoder busy forever.
 */
export function runProcess(command: string, args: readonly string[], timeoutMs: number): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    // Its own process group, killed whole on the deadline and when this process exits (see process-group.ts).
    const child = spawnInGroup(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < MAX_STDOUT) stdout += chunk;
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-MAX_STDERR);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) reject(new ProcessTimeout(command, timeoutMs));
      else resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Container allow-list by magic bytes. The demuxer is then forced with `-f`, so ffmpeg never
 * auto-probes untrusted input into playlist/concat/image formats that can reach other files or URLs.
 */
export async function sniffContainer(file: string): Promise<string | null> {
  const handle = await open(file, 'r');
  let head: Buffer;
  try {
    const buf = Buffer.alloc(400);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    head = buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  const ascii = (a: number, b: number) => head.subarray(a, b).toString('latin1');
  if (head.length < 12) return null;
  if (['ftyp', 'moov', 'mdat', 'wide', 'free', 'skip', 'pnot'].includes(ascii(4, 8))) return 'mov';
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'matroska';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'AVI ') return 'avi';
  if (head.length >= 377 && head[0] === 0x47 && head[188] === 0x47 && head[376] === 0x47) return 'mpegts';
  if (head[0] === 0 && head[1] === 0 && head[2] === 1 && head[3] === 0xba) return 'mpeg';
  if (ascii(0, 4) === 'OggS') return 'ogg';
  if (ascii(0, 3) === 'FLV') return 'flv';
  return null;
}

export interface VideoInfo {
  demuxer: string;
  /** absolute stream index, for -map */
  streamIndex: number;
  width: number;
  height: number;
  duration: number;
  /** frames per second, when the container states it */
  fps: number | null;
}

interface ProbeStream {
  index?: number;
  codec_type?: string;
  width?: number;
  height?: number;
  duration?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  disposition?: { attached_pic?: number };
}

function rate(r: string | undefined): number | null {
  if (!r) return null;
  const [num, den] = r.split('/').map(Number);
  const v = den ? num / den : num;
  return Number.isFinite(v) && v > 0 && v < 1000 ? v : null;
}

/** Last `time=HH:MM:SS.xx` of an ffmpeg progress line, in seconds. */
export function lastReportedTime(stderr: string): number | null {
  const all = [...stderr.matchAll(/time=\s*(\d+):(\d+):(\d+(?:\.\d+)?)/g)];
  const m = all.at(-1);
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : null;
}

function corrupt(message: string, details?: Record<string, unknown>): MediaError {
  return new MediaError('corrupt_video', message, details);
}

export async function probeVideo(file: string, timeoutMs: number, tools: VideoTools = DEFAULT_VIDEO_TOOLS): Promise<VideoInfo> {
  const demuxer = await sniffContainer(file);
  if (!demuxer) throw corrupt('The file is not a video in a supported container (MP4/MOV, WebM/MKV, AVI, MPEG).');
  const common = ['-protocol_whitelist', 'file', '-f', demuxer];
  const probe = await runProcess(tools.ffprobe, ['-v', 'error', ...common, '-print_format', 'json', '-show_format', '-show_streams', file], timeoutMs);
  let parsed: { streams?: ProbeStream[]; format?: { duration?: string } };
  try {
    parsed = JSON.parse(probe.stdout || '{}');
  } catch {
    parsed = {};
  }
  if (probe.code !== 0) throw corrupt('The video could not be read.', { cause: probe.stderr.trim().slice(-500) });
  // Cover art in an audio file is a "video" stream of one picture; it is not footage.
  const stream = (parsed.streams ?? []).find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  if (!stream || !stream.width || !stream.height || stream.index === undefined) {
    throw corrupt('The file contains no video stream.');
  }
  // ffprobe writes "N/A" for unknown values, and the stream's own figure is often the missing one.
  let duration = [stream.duration, parsed.format?.duration].map(Number).find((d) => Number.isFinite(d) && d > 0) ?? 0;
  if (!duration) {
    // MediaRecorder WebM and some streams carry no duration: remux to nowhere and read the clock.
    const scan = await runProcess(tools.ffmpeg, ['-nostdin', '-hide_banner', ...common, '-i', file, '-map', `0:${stream.index}`, '-c', 'copy', '-f', 'null', '-'], timeoutMs);
    duration = lastReportedTime(scan.stderr) ?? 0;
  }
  if (!(duration > 0)) throw corrupt('The video has no measurable duration.');
  return {
    demuxer,
    streamIndex: stream.index,
    width: stream.width,
    height: stream.height,
    duration,
    fps: rate(stream.avg_frame_rate) ?? rate(stream.r_frame_rate),
  };
}
