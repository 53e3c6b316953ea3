import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { MediaError } from '../errors.js';
import { killGroup, spawnInGroup } from '../process-group.js';
import { scaleIntrinsics, type CameraRecovery, type PosedCamera } from './camera.js';
import { parseColmapText, parsePointsTxt } from './colmap-model.js';

// Camera recovery by structure from motion: COLMAP's command-line tools as subprocesses, on the CPU.
// Photos are matched exhaustively (any photo may overlap any other); video frames sequentially (neighbours
// overlap, and exhaustive matching of 60 frames would cost 1770 pairs).

export interface ColmapOptions {
  /** The colmap executable; default `colmap` on PATH. */
  colmapPath?: string;
  matcher: 'exhaustive' | 'sequential';
  /** Photos are scaled to at most this side before feature extraction. */
  maxImageSize?: number;
  /** Whole recovery, all steps together. */
  timeoutMs?: number;
  /** Resident memory of any one step; the step is killed beyond it. */
  maxMemoryMb?: number;
  threads?: number;
  /** One camera for every photo: true for one phone's photos and for video frames. */
  singleCamera?: boolean;
  signal?: AbortSignal;
  onStep?: (step: 'features' | 'matching' | 'mapping', done: number) => void | Promise<void>;
}

export const COLMAP_DEFAULTS = { maxImageSize: 1024, timeoutMs: 600_000, maxMemoryMb: 3072, threads: 2 } as const;

const TAIL_CHARS = 2000;
const MEMORY_POLL_MS = 250;

/** Resident set of a process in MB from /proc (Linux); null elsewhere or once it has exited. */
function residentMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

interface ToolRun {
  colmap: string;
  deadline: number;
  maxMemoryMb: number;
  signal?: AbortSignal;
}

/** Runs one COLMAP command, bounded in time and memory; rejects with a MediaError saying which bound hit. */
async function runStep(run: ToolRun, args: string[]): Promise<{ seconds: number; peakMb: number }> {
  const started = Date.now();
  const remaining = run.deadline - started;
  if (remaining <= 0) throw new MediaError('processing_limit', 'Camera recovery ran out of time', { step: args[0] });
  run.signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const child = spawnInGroup(run.colmap, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let tail = '';
    let peakMb = 0;
    let killedFor: 'time' | 'memory' | 'abort' | null = null;
    child.stderr!.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-TAIL_CHARS);
    });
    const kill = (why: 'time' | 'memory' | 'abort') => {
      if (killedFor) return;
      killedFor = why;
      killGroup(child);
    };
    const timer = setTimeout(() => kill('time'), remaining);
    const poll = setInterval(() => {
      const mb = child.pid ? residentMb(child.pid) : null;
      if (mb !== null) peakMb = Math.max(peakMb, mb);
      if (mb !== null && mb > run.maxMemoryMb) kill('memory');
    }, MEMORY_POLL_MS);
    const onAbort = () => kill('abort');
    run.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      clearTimeout(timer);
      clearInterval(poll);
      run.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish();
      if (error.code === 'ENOENT' || error.code === 'EACCES') {
        reject(new MediaError('tool_missing', 'COLMAP is not installed or not executable', { path: run.colmap }));
      } else reject(error);
    });
    child.on('close', (code) => {
      finish();
      const seconds = (Date.now() - started) / 1000;
      if (killedFor === 'abort') return reject(run.signal?.reason ?? new Error('aborted'));
      if (killedFor === 'time') return reject(new MediaError('processing_limit', 'Camera recovery ran out of time', { step: args[0] }));
      if (killedFor === 'memory') {
        return reject(new MediaError('processing_limit', 'Camera recovery needed too much memory', { step: args[0], limit_mb: run.maxMemoryMb }));
      }
      if (code !== 0) return reject(new MediaError('tool_failed', `COLMAP ${args[0]} failed`, { step: args[0], exit_code: code, log: tail }));
      resolve({ seconds, peakMb });
    });
  });
}

export interface RecoveryInput {
  /** Encoded photos (JPEG, PNG, WebP), in capture order. */
  images: readonly Buffer[];
  /** Skip these photos (no usable cut-out, say); they count as offered but not registered. */
  skip?: ReadonlySet<number>;
}

/**
 * Recovers intrinsics and poses for as many photos as register. The returned cameras use each photo's
 * display size (EXIF orientation applied); the world frame is COLMAP's (arbitrary similarity), which the
 * carving step levels and scales.
 */
export async function recoverCamerasWithColmap(input: RecoveryInput, options: ColmapOptions): Promise<CameraRecovery & { peakMemoryMb: number }> {
  const maxSide = options.maxImageSize ?? COLMAP_DEFAULTS.maxImageSize;
  const threads = String(options.threads ?? COLMAP_DEFAULTS.threads);
  const run: ToolRun = {
    colmap: options.colmapPath ?? 'colmap',
    deadline: Date.now() + (options.timeoutMs ?? COLMAP_DEFAULTS.timeoutMs),
    maxMemoryMb: options.maxMemoryMb ?? COLMAP_DEFAULTS.maxMemoryMb,
    signal: options.signal,
  };
  const work = await mkdtemp(join(tmpdir(), 'plinth-sfm-'));
  const timings: Record<string, number> = {};
  let peakMemoryMb = 0;
  try {
    const imageDir = join(work, 'images');
    await mkdir(imageDir);
    const sizes = new Map<string, { view: number; width: number; height: number; scaledWidth: number; scaledHeight: number }>();
    const started = Date.now();
    for (let view = 0; view < input.images.length; view++) {
      if (input.skip?.has(view)) continue;
      // Oriented and scaled here, so COLMAP sees what the carving sees, and decodes less.
      let image;
      try {
        image = await sharp(input.images[view], { autoOrient: true })
          .resize(maxSide, maxSide, { fit: 'inside', withoutEnlargement: true })
          .flatten({ background: '#000000' })
          .jpeg({ quality: 95 })
          .toBuffer({ resolveWithObject: true });
      } catch {
        continue;
      }
      const meta = await sharp(input.images[view], { autoOrient: true }).metadata();
      const name = `v${String(view).padStart(4, '0')}.jpg`;
      await writeFile(join(imageDir, name), image.data);
      sizes.set(name, {
        view,
        width: meta.autoOrient?.width ?? meta.width ?? image.info.width,
        height: meta.autoOrient?.height ?? meta.height ?? image.info.height,
        scaledWidth: image.info.width,
        scaledHeight: image.info.height,
      });
    }
    timings.prepare = (Date.now() - started) / 1000;
    if (sizes.size < 2) return { cameras: [], viewsTotal: input.images.length, source: 'sfm', timings, peakMemoryMb };

    const database = join(work, 'database.db');
    const step = async (name: string, args: string[]) => {
      const result = await runStep(run, args);
      timings[name] = result.seconds;
      peakMemoryMb = Math.max(peakMemoryMb, result.peakMb);
    };
    await step('features', [
      'feature_extractor',
      '--database_path', database,
      '--image_path', imageDir,
      '--ImageReader.single_camera', options.singleCamera === false ? '0' : '1',
      '--ImageReader.camera_model', 'SIMPLE_RADIAL',
      '--SiftExtraction.use_gpu', '0',
      '--SiftExtraction.max_image_size', String(maxSide),
      // Half COLMAP's default: matching cost grows with the square of it, and a product needs far fewer.
      '--SiftExtraction.max_num_features', '4096',
      '--SiftExtraction.num_threads', threads,
    ]);
    await options.onStep?.('features', sizes.size);
    await step(
      'matching',
      options.matcher === 'sequential'
        ? ['sequential_matcher', '--database_path', database, '--SiftMatching.use_gpu', '0', '--SiftMatching.num_threads', threads,
           '--SequentialMatching.overlap', '10']
        : ['exhaustive_matcher', '--database_path', database, '--SiftMatching.use_gpu', '0', '--SiftMatching.num_threads', threads],
    );
    await options.onStep?.('matching', sizes.size);
    const sparse = join(work, 'sparse');
    await mkdir(sparse);
    try {
      await step('mapping', [
        'mapper',
        '--database_path', database,
        '--image_path', imageDir,
        '--output_path', sparse,
        '--Mapper.num_threads', threads,
        // Shop captures are small: a 6-photo model is still a model (COLMAP's default drops models under 10).
        '--Mapper.min_model_size', '3',
      ]);
    } catch (error) {
      // The mapper exits non-zero when it finds no initial pair: nothing registered, which is an answer.
      if (!(error instanceof MediaError && error.reason === 'tool_failed')) throw error;
    }
    await options.onStep?.('mapping', sizes.size);

    // Several disconnected models may come out; the largest is the product (the rest are stray pairs).
    let best: PosedCamera[] = [];
    let points: Float32Array | undefined;
    for (const model of (await readdir(sparse)).sort()) {
      const text = join(work, `text-${model}`);
      await mkdir(text);
      await runStep(run, ['model_converter', '--input_path', join(sparse, model), '--output_path', text, '--output_type', 'TXT']);
      const cameras = parseColmapText(
        await readFile(join(text, 'cameras.txt'), 'utf8'),
        await readFile(join(text, 'images.txt'), 'utf8'),
        (name) => sizes.get(name)?.view,
      );
      if (cameras.length > best.length) {
        best = cameras;
        points = parsePointsTxt(await readFile(join(text, 'points3D.txt'), 'utf8'));
      }
    }
    const byView = new Map([...sizes.values()].map((s) => [s.view, s]));
    const cameras = best.map((cam) => {
      const size = byView.get(cam.view)!;
      return scaleIntrinsics({ ...cam, width: size.scaledWidth, height: size.scaledHeight }, size.width, size.height);
    });
    return { cameras, points, viewsTotal: input.images.length, source: 'sfm', timings, peakMemoryMb };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const probeCache = new Map<string, Promise<boolean>>();

/** Whether COLMAP can be run at `colmapPath` (cached per path for the process's life): for the health check. */
export function colmapAvailable(colmapPath = 'colmap'): Promise<boolean> {
  let probe = probeCache.get(colmapPath);
  if (!probe) {
    probe = new Promise<boolean>((resolve) => {
      const child = spawnInGroup(colmapPath, ['help'], { stdio: 'ignore' });
      const timer = setTimeout(() => {
        killGroup(child);
        resolve(false);
      }, 10_000);
      child.on('error', () => {
        clearTimeout(timer);
        resolve(false);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve(code === 0);
      });
    });
    probeCache.set(colmapPath, probe);
  }
  return probe;
}
