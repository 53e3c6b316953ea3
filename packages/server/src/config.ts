import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync, accessSync, constants as fsConstants } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { DEFAULT_DELIVERY_BUDGETS, DELIVERY_NAMES, type DeliveryBudgets, type ModelCaps } from '@plinth/media';

/**
 * The one reader of the environment. Everything else receives a frozen Config.
 * Unknown or malformed values fail loudly at start, not at first use.
 */
export interface RateLimitConfig {
  enabled: boolean;
  /** tokens added per second to a key's API bucket */
  apiPerSecond: number;
  /** bucket size: the burst a key may spend at once */
  apiBurst: number;
  beaconPerSecond: number;
  beaconBurst: number;
  /** sign-in attempts per email (burst, then refill per second); each client IP gets three times the burst */
  loginPerSecond: number;
  loginBurst: number;
}

/**
 * The one pricing table (credits). Quotes are computed from it, and a commit recomputes the price:
 * a change here between quote and commit gives 400 quote_changed.
 */
export interface Pricing {
  /** ingesting one image (fetch, decode, analyse) */
  image: number;
  /** a product page: fetch, extract, then its images */
  sourcePage: number;
  /** a video: frame extraction, then its frames as images */
  video: number;
  /** generating a 3D model from images */
  modelGeneration: number;
  /** rendering images from a model (order for a model-only product) */
  renders: number;
  /** how long a quote's resume token stays valid */
  quoteTtlSeconds: number;
}

export const DEFAULT_PRICING: Pricing = Object.freeze({
  image: 1,
  sourcePage: 2,
  video: 5,
  modelGeneration: 20,
  renders: 4,
  quoteTtlSeconds: 3600,
});

export interface ToolPaths {
  ffmpeg: string;
  /** ffprobe ships with ffmpeg: taken from the same directory when PLINTH_FFMPEG_PATH is set */
  ffprobe: string;
  chromium: string;
  colmap: string;
  /**
   * The environment the server starts them with when it probes them: its own, plus QT_QPA_PLATFORM=offscreen,
   * since Chromium's wrapper and colmap read the display and neither needs one to print its version.
   */
  env: Readonly<Record<string, string | undefined>>;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** postgres://… for PostgreSQL; otherwise a SQLite file path */
  databaseUrl: string;
  redisUrl: string | null;
  /** file://… (disk) or s3://bucket?endpoint=…&region=…&force_path_style=true */
  storageUrl: string;
  /**
   * Where the worker's media children share cut-outs by content hash: a cache, never state. Beside the
   * data in embedded mode; in the system's temporary directory when files live in a bucket, so a
   * scaled-out worker keeps nothing of its own under PLINTH_DATA_DIR.
   */
  cutoutCacheDir: string;
  publicUrl: string;
  secret: string;
  smtpUrl: string | null;
  fetchAllowHosts: readonly string[];
  rateLimits: RateLimitConfig;
  logLevel: string;
  jobs: { leaseSeconds: number; pollMs: number; concurrency: number };
  webhookRetryScale: number;
  /** how long raw records are kept; usage keeps answering from rollups after raw beacons are gone */
  retention: { beaconDays: number; webhookDays: number; intervalSeconds: number };
  exportSyncLimit: number;
  /** system tools: an explicit PLINTH_*_PATH, else the first match on PATH, else the bare name (reported missing) */
  tools: ToolPaths;
  bodyLimitBytes: number;
  uploadLimitBytes: number;
  /** bytes of uploads an organization may keep (PLINTH_UPLOAD_QUOTA_BYTES) */
  uploadQuotaBytes: number;
  /** an upload no product has used is deleted after this long */
  uploadRetentionSeconds: number;
  /** how often the worker looks for such uploads */
  uploadSweepSeconds: number;
  fetch: { maxBytes: number; timeoutMs: number; maxRedirects: number };
  pricing: Pricing;
  /** built-in silhouette carving, or a hosted image-to-3D service */
  generator: { kind: 'builtin' | 'external'; url: string | null; apiKey: string | null; triangleBudget: number };
  /** turntable renders of a model-only product's model */
  renders: { views: number; size: number };
  /** the cut-out: PLINTH_SEGMENTER (auto = IS-Net when a model is available) and PLINTH_SEGMENTER_MODEL (an ONNX file) */
  segmenter: { kind: 'auto' | 'isnet' | 'classical'; modelPath: string | null };
  /**
   * The media sandbox: each child's memory cap (PLINTH_MEDIA_MEMORY_MB, V8 heap and resident memory),
   * the time one media step may take (PLINTH_MEDIA_TIMEOUT_S), its V8 stack and how many children run.
   */
  media: { memoryMb: number; timeoutS: number; stackKb: number; children: number };
  /** input caps for models, checked before anything big is allocated (model_too_complex) */
  modelLimits: ModelCaps;
  /** the budgets of a model's web, mobile and USDZ deliveries (PLINTH_DELIVERY_*), before a model's own overrides */
  delivery: DeliveryBudgets;
}


type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new ConfigError(`${name} must be a number >= ${min}, got "${raw}"`);
  return n;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
}

/** PLINTH_SECRET signs resume tokens and download links; generated once per data dir when unset. */
function resolveSecret(env: Env, dataDir: string): string {
  if (env.PLINTH_SECRET) {
    if (env.PLINTH_SECRET.length < 16) throw new ConfigError('PLINTH_SECRET must be at least 16 characters');
    return env.PLINTH_SECRET;
  }
  const file = join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  // The data directory holds the database, uploads and this secret: its owner's only.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  return secret;
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const port = int(env, 'PORT', 3000);
  // Listening on every interface is a deliberate HOST=0.0.0.0, never a default.
  const host = env.HOST || '127.0.0.1';
  const dataDir = resolve(env.PLINTH_DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL || join(dataDir, 'plinth.db');
  const storageUrl = env.STORAGE_URL || `file://${join(dataDir, 'files')}`;
  if (!/^(file|s3):\/\//.test(storageUrl)) throw new ConfigError('STORAGE_URL must start with file:// or s3://');
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  const rateLimitsRaw = (env.PLINTH_RATE_LIMITS || 'on').toLowerCase();
  if (!['on', 'off'].includes(rateLimitsRaw)) throw new ConfigError('PLINTH_RATE_LIMITS must be "on" or "off"');

  const config: Config = {
    port,
    host,
    dataDir,
    databaseUrl,
    redisUrl: env.REDIS_URL || null,
    storageUrl,
    cutoutCacheDir: storageUrl.startsWith('s3://') ? join(tmpdir(), 'plinth-cutouts') : join(dataDir, 'cutouts'),
    publicUrl,
    secret: resolveSecret(env, dataDir),
    smtpUrl: env.SMTP_URL || null,
    fetchAllowHosts: Object.freeze(list(env.PLINTH_FETCH_ALLOW_HOSTS)),
    rateLimits: {
      enabled: rateLimitsRaw === 'on',
      apiPerSecond: int(env, 'PLINTH_RATE_LIMIT_API_PER_SECOND', 25, 0.001),
      apiBurst: int(env, 'PLINTH_RATE_LIMIT_API_BURST', 100, 1),
      beaconPerSecond: int(env, 'PLINTH_RATE_LIMIT_BEACON_PER_SECOND', 50, 0.001),
      beaconBurst: int(env, 'PLINTH_RATE_LIMIT_BEACON_BURST', 200, 1),
      loginPerSecond: int(env, 'PLINTH_RATE_LIMIT_LOGIN_PER_SECOND', 0.1, 0.001),
      loginBurst: int(env, 'PLINTH_RATE_LIMIT_LOGIN_BURST', 10, 1),
    },
    logLevel: env.LOG_LEVEL || 'info',
    jobs: {
      leaseSeconds: int(env, 'PLINTH_JOB_LEASE_SECONDS', 60, 1),
      pollMs: int(env, 'PLINTH_JOB_POLL_MS', 250, 10),
      concurrency: int(env, 'PLINTH_JOB_CONCURRENCY', 2, 1),
    },
    webhookRetryScale: int(env, 'PLINTH_WEBHOOK_RETRY_SCALE', 1, 0),
    retention: {
      beaconDays: int(env, 'PLINTH_BEACON_RETENTION_DAYS', 90, 1),
      webhookDays: int(env, 'PLINTH_WEBHOOK_RETENTION_DAYS', 30, 1),
      intervalSeconds: int(env, 'PLINTH_RETENTION_INTERVAL_SECONDS', 3600, 1),
    },
    exportSyncLimit: int(env, 'PLINTH_EXPORT_SYNC_LIMIT', 24, 0),
    tools: toolPaths(env),
    bodyLimitBytes: int(env, 'PLINTH_BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    uploadLimitBytes: int(env, 'PLINTH_UPLOAD_LIMIT_BYTES', 40 * 1024 * 1024, 1024),
    uploadQuotaBytes: int(env, 'PLINTH_UPLOAD_QUOTA_BYTES', 5 * 1024 ** 3, 0),
    uploadRetentionSeconds: int(env, 'PLINTH_UPLOAD_RETENTION_S', 24 * 3600, 1),
    uploadSweepSeconds: int(env, 'PLINTH_UPLOAD_SWEEP_S', 3600, 1),
    fetch: {
      maxBytes: int(env, 'PLINTH_FETCH_MAX_BYTES', 50 * 1024 * 1024, 1024),
      timeoutMs: int(env, 'PLINTH_FETCH_TIMEOUT_MS', 30_000, 100),
      maxRedirects: 3,
    },
    pricing: pricing(env.PLINTH_PRICING),
    generator: generator(env),
    renders: { views: int(env, 'PLINTH_RENDER_VIEWS', 8, 1), size: int(env, 'PLINTH_RENDER_SIZE', 2048, 64) },
    segmenter: segmenter(env),
    media: {
      memoryMb: int(env, 'PLINTH_MEDIA_MEMORY_MB', 2048, 64),
      // Generous for one step (a built-in generation takes under 20 s on two cores, a render under 2 min).
      timeoutS: int(env, 'PLINTH_MEDIA_TIMEOUT_S', 300, 1),
      // About twice V8's default, well inside the 8 MB a process's main thread gets.
      stackKb: 2048,
      children: 2,
    },
    modelLimits: {
      maxTriangles: int(env, 'PLINTH_MODEL_MAX_TRIANGLES', 2_000_000, 1),
      maxNodes: int(env, 'PLINTH_MODEL_MAX_NODES', 10_000, 1),
      maxDepth: int(env, 'PLINTH_MODEL_MAX_DEPTH', 64, 1),
      maxTextureSide: int(env, 'PLINTH_MODEL_MAX_TEXTURE_SIDE', 16_384, 1),
      maxTexturePixels: int(env, 'PLINTH_MODEL_MAX_TEXTURE_PIXELS', 256_000_000, 1),
      maxBufferBytes: int(env, 'PLINTH_MODEL_MAX_BUFFER_BYTES', 200 * 1024 * 1024, 1),
    },
    delivery: deliveryBudgets(env),
  };
  return deepFreeze(config);
}

/** PLINTH_DELIVERY_<WEB|MOBILE|USDZ>_<MAX_BYTES|MAX_TRIANGLES|MAX_TEXTURE_PX>; the USDZ has no triangle budget by default. */
function deliveryBudgets(env: Env): DeliveryBudgets {
  const out = {} as DeliveryBudgets;
  for (const name of DELIVERY_NAMES) {
    const d = DEFAULT_DELIVERY_BUDGETS[name];
    const prefix = `PLINTH_DELIVERY_${name.toUpperCase()}_`;
    const triangles = env[`${prefix}MAX_TRIANGLES`];
    out[name] = {
      maxBytes: int(env, `${prefix}MAX_BYTES`, d.maxBytes, 1),
      maxTriangles: triangles === undefined || triangles === '' ? d.maxTriangles : int(env, `${prefix}MAX_TRIANGLES`, 0, 1),
      maxTexturePx: int(env, `${prefix}MAX_TEXTURE_PX`, d.maxTexturePx, 1),
    };
  }
  return out;
}

/** PLINTH_PRICING is a JSON object overriding entries of the default table, e.g. {"modelGeneration": 30}. */
function pricing(raw: string | undefined): Pricing {
  if (!raw) return { ...DEFAULT_PRICING };
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new ConfigError('PLINTH_PRICING must be a JSON object');
  }
  const out: Pricing = { ...DEFAULT_PRICING };
  for (const [k, v] of Object.entries(parsed)) {
    if (!(k in DEFAULT_PRICING)) throw new ConfigError(`PLINTH_PRICING has an unknown entry "${k}"`);
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new ConfigError(`PLINTH_PRICING.${k} must be a whole number >= 0`);
    (out as unknown as Record<string, number>)[k] = v;
  }
  return out;
}

function segmenter(env: Env): Config['segmenter'] {
  const kind = (env.PLINTH_SEGMENTER || 'auto').toLowerCase();
  if (kind !== 'auto' && kind !== 'isnet' && kind !== 'classical') {
    throw new ConfigError('PLINTH_SEGMENTER must be "auto", "isnet" or "classical"');
  }
  const modelPath = env.PLINTH_SEGMENTER_MODEL ? resolve(env.PLINTH_SEGMENTER_MODEL) : null;
  if (modelPath && !existsSync(modelPath)) throw new ConfigError(`PLINTH_SEGMENTER_MODEL: ${modelPath} does not exist`);
  return { kind, modelPath };
}

function generator(env: Env): Config['generator'] {
  const kind = (env.PLINTH_GENERATOR || 'builtin').toLowerCase();
  if (kind !== 'builtin' && kind !== 'external') throw new ConfigError('PLINTH_GENERATOR must be "builtin" or "external"');
  const url = env.PLINTH_GENERATOR_URL || null;
  if (kind === 'external' && !url) throw new ConfigError('PLINTH_GENERATOR=external needs PLINTH_GENERATOR_URL');
  return { kind, url, apiKey: env.PLINTH_GENERATOR_KEY || null, triangleBudget: int(env, 'PLINTH_GENERATOR_TRIANGLES', 20_000, 100) };
}

function findOnPath(env: Env, names: readonly string[]): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of names) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, fsConstants.X_OK);
        return candidate;
      } catch {
        // not here; keep looking
      }
    }
  }
  return null;
}

/** Distributions name Chromium differently; any of these speaks the DevTools protocol playwright needs. */
const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

function toolPaths(env: Env): ToolPaths {
  const ffmpeg = env.PLINTH_FFMPEG_PATH || findOnPath(env, ['ffmpeg']) || 'ffmpeg';
  const besideFfmpeg = join(dirname(ffmpeg), 'ffprobe');
  const ffprobe = ffmpeg.includes('/') && existsSync(besideFfmpeg) ? besideFfmpeg : findOnPath(env, ['ffprobe']) || 'ffprobe';
  return {
    ffmpeg,
    ffprobe,
    chromium: env.PLINTH_CHROMIUM_PATH || findOnPath(env, CHROMIUM_NAMES) || 'chromium',
    colmap: env.PLINTH_COLMAP_PATH || findOnPath(env, ['colmap']) || 'colmap',
    env: { ...env, QT_QPA_PLATFORM: 'offscreen' },
  };
}

function deepFreeze<T extends object>(o: T): Readonly<T> {
  for (const v of Object.values(o)) if (v && typeof v === 'object' && !Object.isFrozen(v)) deepFreeze(v);
  return Object.freeze(o);
}
