// The contract every 3D generator meets, built-in or hosted. Callers hand over the
// product photos with their masks and get back a self-contained GLB (Y up, metres,
// centred on the vertical axis with its base on y = 0 so AR placement sits on the floor).
import { MediaError } from '../errors.js';
import type { ModelQuality } from './model-quality.js';

export interface GeneratorView {
  /** Encoded image (JPEG, PNG or WebP): the product photo. */
  image: Buffer;
  /** 8-bit greyscale PNG, same size as the image (a differently sized mask is scaled to it); 255 = product. */
  mask: Buffer;
  /** Turntable angle if known; see docs/generation.md for the convention. */
  azimuthDeg?: number;
  elevationDeg?: number;
}

export interface GenerateHints {
  /** One angle per view, in view order; wins over GeneratorView.azimuthDeg. */
  azimuthsDeg?: number[];
  /** Camera elevation shared by all views that carry none of their own; default 0. */
  elevationDeg?: number;
  /** Real height if known. Without it the tallest side becomes DEFAULT_TALLEST_SIDE_METRES. */
  heightMetres?: number;
  /** Default DEFAULT_TRIANGLE_BUDGET; smaller than MIN_TRIANGLE_BUDGET counts as that. */
  triangleBudget?: number;
  /** Longest side of the texture atlas, 64–4096; default DEFAULT_TEXTURE_SIZE. */
  textureSize?: number;
  /**
   * How the photos were taken. `auto` and `walkaround` recover the cameras by structure from motion and
   * carve with them; `turntable` (the default here) assumes the turntable angles above.
   */
  capture?: 'auto' | 'turntable' | 'walkaround';
  /** Real size in metres (height wins, then width, then depth); heightMetres is the turntable's form of it. */
  dimensions?: { height?: number; width?: number; depth?: number };
  /** The photos are consecutive video frames: match each with its neighbours only. */
  sequence?: boolean;
  /** COLMAP executable for recovered cameras; default `colmap` on PATH. */
  colmapPath?: string;
  /** Bound on camera recovery; default COLMAP_DEFAULTS.timeoutMs. */
  colmapTimeoutMs?: number;
}

export interface GenerateResult {
  glb: Buffer;
  /** Metres, from the output's bounding box (x, y, z). */
  dimensions: { width: number; height: number; depth: number };
  triangles: number;
  method: 'visual_hull' | 'relief_card' | 'external';
  /** How it was made and how well it agrees with the photos; absent only for hosted generators. */
  quality?: ModelQuality;
}

export type ProgressFn = (percent: number, step: string) => void | Promise<void>;

export interface Generator {
  readonly name: string;
  generate(views: GeneratorView[], hints: GenerateHints, onProgress?: ProgressFn, signal?: AbortSignal): Promise<GenerateResult>;
}

export const DEFAULT_TRIANGLE_BUDGET = 20_000;
export const MIN_TRIANGLE_BUDGET = 100;
export const DEFAULT_TEXTURE_SIZE = 1024;
/**
 * Size used when the real one is unknown: a typical tabletop product. Wrong sizes are
 * fixed later by rescaling, and a plausible one keeps AR previews from opening at an
 * absurd scale meanwhile.
 */
export const DEFAULT_TALLEST_SIDE_METRES = 0.3;

export interface ResolvedHints {
  azimuthsDeg: number[] | null;
  elevationDeg: number;
  heightMetres: number | null;
  triangleBudget: number;
  textureSize: number;
}

function positive(value: number | undefined, name: string): number | null {
  if (value === undefined) return null;
  if (!Number.isFinite(value) || value <= 0) throw new MediaError('invalid_hints', `${name} must be a positive number`);
  return value;
}

/** Defaults and sanity limits in one place, shared by the built-in and external generators. */
export function resolveHints(hints: GenerateHints): ResolvedHints {
  const budget = positive(hints.triangleBudget, 'triangleBudget') ?? DEFAULT_TRIANGLE_BUDGET;
  const texture = positive(hints.textureSize, 'textureSize') ?? DEFAULT_TEXTURE_SIZE;
  const elevation = hints.elevationDeg ?? 0;
  if (!Number.isFinite(elevation) || Math.abs(elevation) > 80) {
    throw new MediaError('invalid_hints', 'elevationDeg must be between -80 and 80');
  }
  if (hints.azimuthsDeg && !hints.azimuthsDeg.every((a) => Number.isFinite(a))) {
    throw new MediaError('invalid_hints', 'azimuthsDeg must be finite numbers');
  }
  return {
    azimuthsDeg: hints.azimuthsDeg ?? null,
    elevationDeg: elevation,
    heightMetres: positive(hints.heightMetres, 'heightMetres'),
    // Below a hundred triangles a carved shape stops being recognisable (and the
    // simplifier may collapse it entirely); the relief card needs at most 12.
    triangleBudget: Math.max(MIN_TRIANGLE_BUDGET, Math.floor(budget)),
    // Textures beyond 4096 are refused by many mobile AR viewers.
    textureSize: Math.min(4096, Math.max(64, Math.round(texture))),
  };
}

/** Throws the signal's reason (an AbortError by default) once the caller gave up. */
export function checkAborted(signal: AbortSignal | undefined): void {
  signal?.throwIfAborted();
}
