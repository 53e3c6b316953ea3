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
// Matching is most of the cost: every pair of photos is a brute-force match of their features and a RANSAC that
// runs to its limit when the photos share nothing, 0.15-0.45 s of CPU per pair at 1024 px. A
// walk-around's photos come in the order they were taken, so each is matched first with its next few in that
// order (cyclically: a walk round ends where it began): 144 pairs for 36 photos instead of all 630. Only when
// that leaves photos out are they matched with every photo, and only when the order says little (most photos
// unplaced) is every pair matched, as before. Video frames are matched sequentially (neighbours overlap, and
// exhaustive matching of 60 frames would cost 1770 pairs).

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
  /**
   * One camera for every photo of one size (true, the default: one phone's photos, video frames), or one per
   * photo (false). Photos of different sizes or orientations never share a camera.
   */
  singleCamera?: boolean;
  signal?: AbortSignal;
  onStep?: (step: 'features' | 'matching' | 'mapping', done: number) => void | Promise<void>;
}

export const COLMAP_DEFAULTS = { maxImageSize: 1024, timeoutMs: 600_000, maxMemoryMb: 3072, threads: 2 } as const;

/**
 * Photos matched first with this many after them in capture order. Four reach 40° either side on a 36-photo
 * walk round and 90° on a 16-photo ring; a feature is then seen in enough photos for the mapper's tracks.
 */
export const ORDER_WINDOW = 4;
/** Photos whose longer side (as given to COLMAP) is at least this are not doubled for their first octave. */
const FULL_OCTAVE_SIDE = 1000;
/** Up to this many photos every pair is matched at once: the window would save little. */
const ALL_PAIRS_UP_TO = 12;
/** Below this share of the photos placed from the window's pairs, the capture order is not a walk: all pairs. */
const ORDER_TRUSTED_SHARE = 0.5;

/** Matching: guided by each pair's two-view geometry, which finds more true matches on few, far-apart photos. */
const MATCHING = (threads: string) => ['--SiftMatching.use_gpu', '0', '--SiftMatching.num_threads', threads, '--SiftMatching.guided_matching', '1'];

/**
 * The mapper's thresholds, looser than COLMAP's defaults (made for large scenes of many photos): a product
 * walk-around has 10-60 photos that overlap less. A view placed wrongly is still caught afterwards: the
 * held-out gate refuses a model whose cameras disagree with the photos.
 */
const RELAXED_MAPPER = [
  '--Mapper.init_min_num_inliers', '50',
  '--Mapper.init_min_tri_angle', '8',
  '--Mapper.abs_pose_min_num_inliers', '15',
  '--Mapper.abs_pose_min_inlier_ratio', '0.15',
];

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
      // One folder per photo size: COLMAP gives each folder its own camera, so portrait and landscape photos
      // (and two phones) in one capture each get intrinsics of their own instead of being skipped.
      const folder = `${image.info.width}x${image.info.height}`;
      await mkdir(join(imageDir, folder), { recursive: true });
      const name = `${folder}/v${String(view).padStart(4, '0')}.jpg`;
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
    // SIFT's first octave doubles the photo. At 1024 px that costs three quarters of the extraction and doubles
    // the features, every one of which is matched in every pair, and the photo's own scale places the cameras as
    // well (36 handheld photos: the same cameras to 0.1 mm, less than half the CPU). Smaller photos keep it: the
    // temple's 640 × 480 photos without it place 13 of 16 at 3° instead of 16 at 1°.
    const smallestSide = Math.min(...[...sizes.values()].map((s) => Math.max(s.scaledWidth, s.scaledHeight)));
    const firstOctave = smallestSide >= FULL_OCTAVE_SIDE ? 0 : -1;
    await step('features', [
      'feature_extractor',
      '--database_path', database,
      '--image_path', imageDir,
      ...(options.singleCamera === false ? ['--ImageReader.single_camera_per_image', '1'] : ['--ImageReader.single_camera_per_folder', '1']),
      '--ImageReader.camera_model', 'SIMPLE_RADIAL',
      '--SiftExtraction.use_gpu', '0',
      '--SiftExtraction.max_image_size', String(maxSide),
      // Half COLMAP's default: matching cost grows with the square of it, and a product needs far fewer.
      '--SiftExtraction.max_num_features', '4096',
      '--SiftExtraction.first_octave', String(firstOctave),
      '--SiftExtraction.num_threads', threads,
    ]);
    await options.onStep?.('features', sizes.size);
    // Capture order: the photos' names sorted by their place in the input.
    const names = [...sizes.entries()].sort((a, b) => a[1].view - b[1].view).map(([name]) => name);
    const windowed = options.matcher === 'exhaustive' && names.length > ALL_PAIRS_UP_TO;
    let pairFile = 0;
    const matchPairs = async (name: string, pairs: readonly [string, string][]) => {
      const list = join(work, `pairs-${pairFile++}.txt`);
      await writeFile(list, pairs.map(([a, b]) => `${a} ${b}\n`).join(''));
      await step(name, ['matches_importer', '--database_path', database, '--match_list_path', list, '--match_type', 'pairs', ...MATCHING(threads)]);
    };
    if (options.matcher === 'sequential') {
      await step('matching', ['sequential_matcher', '--database_path', database, ...MATCHING(threads), '--SequentialMatching.overlap', '10',
        '--SequentialMatching.quadratic_overlap', '1']);
    } else if (windowed) {
      await matchPairs('matching', orderPairs(names, ORDER_WINDOW));
    } else {
      await step('matching', ['exhaustive_matcher', '--database_path', database, ...MATCHING(threads)]);
    }
    await options.onStep?.('matching', sizes.size);
    let sparseRun = 0;
    const map = async (name: string) => {
      const sparse = join(work, `sparse-${sparseRun++}`);
      await mkdir(sparse);
      try {
        await step(name, [
          'mapper',
          '--database_path', database,
          '--image_path', imageDir,
          '--output_path', sparse,
          '--Mapper.num_threads', threads,
          // Shop captures are small: a 6-photo model is still a model (COLMAP's default drops models under 10).
          '--Mapper.min_model_size', '3',
          ...RELAXED_MAPPER,
        ]);
      } catch (error) {
        // The mapper exits non-zero when it finds no initial pair: nothing registered, which is an answer.
        if (!(error instanceof MediaError && error.reason === 'tool_failed')) throw error;
      }
      return sparse;
    };
    let sparse = await map('mapping');

    // Several disconnected models may come out; the largest is the product (the rest are stray pairs).
    const readModel = async (path: string, label: string) => {
      const text = join(work, `text-${label}`);
      await mkdir(text);
      await runStep(run, ['model_converter', '--input_path', path, '--output_path', text, '--output_type', 'TXT']);
      const cameras = parseColmapText(
        await readFile(join(text, 'cameras.txt'), 'utf8'),
        await readFile(join(text, 'images.txt'), 'utf8'),
        (name) => sizes.get(name)?.view,
      );
      return { cameras, text };
    };
    let best: PosedCamera[] = [];
    let bestPath: string | null = null;
    let bestText: string | null = null;
    const readBest = async () => {
      [best, bestPath, bestText] = [[], null, null];
      for (const model of (await readdir(sparse)).sort()) {
        const { cameras, text } = await readModel(join(sparse, model), `${sparseRun}-${model}`);
        if (cameras.length > best.length) [best, bestPath, bestText] = [cameras, join(sparse, model), text];
      }
    };
    await readBest();
    if (windowed && best.length < names.length) {
      const placed = new Set(best.map((cam) => cam.view));
      if (best.length >= Math.max(3, ORDER_TRUSTED_SHARE * names.length)) {
        // The walk holds, a few photos did not join it (a step out of order, a blurred one): those are matched
        // with every photo, and the second pass below registers them against the model.
        await matchPairs('matching_left_out', leftOutPairs(names, (name) => placed.has(sizes.get(name)!.view), ORDER_WINDOW));
      } else {
        // The order is not a walk (photos shuffled, or listed in an order unrelated to where they were taken):
        // every pair, as without the window (the pairs already matched are skipped), and the mapper again.
        await step('matching_all', ['exhaustive_matcher', '--database_path', database, ...MATCHING(threads)]);
        sparse = await map('mapping_all');
        await readBest();
      }
    }
    await options.onStep?.('mapping', sizes.size);
    // A second pass for the photos the mapper left out: registered against the finished model with looser
    // thresholds, then everything adjusted together. A photo that still does not fit stays out.
    if (bestPath && best.length >= 3 && best.length < sizes.size) {
      const again = join(work, 'registered');
      await mkdir(again);
      try {
        await step('registering', ['image_registrator', '--database_path', database, '--input_path', bestPath, '--output_path', again, ...RELAXED_MAPPER]);
        await step('adjusting', ['bundle_adjuster', '--input_path', again, '--output_path', again]);
        const second = await readModel(again, 'registered');
        if (second.cameras.length > best.length) [best, bestText] = [second.cameras, second.text];
      } catch (error) {
        if (!(error instanceof MediaError && error.reason === 'tool_failed')) throw error;
      }
    }
    const points = bestText ? parsePointsTxt(await readFile(join(bestText, 'points3D.txt'), 'utf8')) : undefined;
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

/** Each photo with the next `window` in capture order, cyclically; every pair once. */
export function orderPairs(names: readonly string[], window: number): [string, string][] {
  const n = names.length;
  const pairs: [string, string][] = [];
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    for (let d = 1; d <= Math.min(window, n - 1); d++) {
      const j = (i + d) % n;
      const key = i < j ? `${i} ${j}` : `${j} ${i}`;
      if (seen.has(key)) continue;
      seen.add(key);
      pairs.push([names[i], names[j]]);
    }
  }
  return pairs;
}

/** Every pair with a photo the model left out, except those `orderPairs(names, window)` matched already. */
export function leftOutPairs(names: readonly string[], placed: (name: string) => boolean, window: number): [string, string][] {
  const n = names.length;
  const pairs: [string, string][] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (placed(names[i]) && placed(names[j])) continue;
      const apart = Math.min(j - i, n - (j - i));
      if (apart <= window) continue;
      pairs.push([names[i], names[j]]);
    }
  }
  return pairs;
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
