import { WarmRenderer, type RenderJob } from './warm-renderer.js';

export { CHROMIUM_ARGS } from './warm-renderer.js';

export interface RenderOptions {
  chromiumPath: string;
  /** Number of views at equal azimuth steps, starting at 0° (front). Default 8. */
  views?: number;
  /** Square image edge in pixels. Default 2048. */
  size?: number;
  /** Camera elevation above the model's centre, in degrees. Default 15. */
  elevationDeg?: number;
  /** Whole call, a browser launch included. Default 120000. */
  timeoutMs?: number;
  /** Studio environment lighting, as the embed's viewer uses: for a poster that must look like the live model. Default false. */
  environment?: boolean;
  /** Memory the shared browser may keep after this render, in MB (proportional set size); above it, it is relaunched. */
  maxMemoryMb?: number;
}

// SwiftShader's largest texture/viewport is 8192; beyond that WebGL silently clamps.
const MAX_SIZE = 8192;
const MAX_VIEWS = 360;

function resolveOptions(opts: RenderOptions): RenderJob {
  const r: RenderJob = {
    chromiumPath: opts.chromiumPath,
    views: opts.views ?? 8,
    size: opts.size ?? 2048,
    elevationDeg: opts.elevationDeg ?? 15,
    timeoutMs: opts.timeoutMs ?? 120_000,
    environment: opts.environment === true,
    maxMemoryMb: opts.maxMemoryMb,
  };
  if (!r.chromiumPath) throw new Error('renderTurntable: chromiumPath is required');
  if (!Number.isInteger(r.views) || r.views < 1 || r.views > MAX_VIEWS) {
    throw new Error(`renderTurntable: views must be an integer in 1..${MAX_VIEWS}`);
  }
  if (!Number.isInteger(r.size) || r.size < 16 || r.size > MAX_SIZE) {
    throw new Error(`renderTurntable: size must be an integer in 16..${MAX_SIZE}`);
  }
  // At ±90° the camera's up vector is parallel to the view direction.
  if (!Number.isFinite(r.elevationDeg) || Math.abs(r.elevationDeg) >= 90) {
    throw new Error('renderTurntable: elevationDeg must be within (-90, 90)');
  }
  if (!Number.isFinite(r.timeoutMs) || r.timeoutMs <= 0) throw new Error('renderTurntable: timeoutMs must be positive');
  return r;
}

/**
 * Draws a GLB in headless Chromium at `views` equal azimuth steps on a transparent
 * background. Returns one size×size RGBA PNG per view, in azimuth order from 0°
 * (camera on +z looking down -z at the model's front) through 90° (camera on +x).
 * The camera distance is fixed by the model's bounding sphere, so all views share
 * one scale and the sphere spans ~85% of the frame. Every render of this process shares one warm browser
 * (see WarmRenderer); the time limit counts from the render's turn, a browser launch included.
 */
export async function renderTurntable(glb: Buffer, opts: RenderOptions): Promise<Buffer[]> {
  const job = resolveOptions(opts);
  shared ??= new WarmRenderer();
  return shared.render(glb, job);
}

/**
 * Launches this process's browser and draws once with these options (see WarmRenderer.warm), so the first real
 * render finds it warm: for a worker at start, with the options of the render it expects first.
 */
export async function warmRenderer(opts: RenderOptions): Promise<void> {
  const job = resolveOptions(opts);
  shared ??= new WarmRenderer();
  return shared.warm(job);
}

/** The browser every render of this process shares; created on the first render or warm-up. */
let shared: WarmRenderer | null = null;

/** Closes this process's browser (at shutdown); a later render launches a new one. */
export async function closeRenderer(): Promise<void> {
  const renderer = shared;
  shared = null;
  await renderer?.close();
}
