import { createHash } from 'node:crypto';
import { isPresetName, PRESET_NAMES, PRESETS, type PresetName } from './presets.js';
import type { ShadowStyle } from './shadow.js';

export type ImageFormat = 'jpeg' | 'png' | 'webp';

export interface CanvasSize {
  width: number;
  height: number;
}

/** Settings with every default and the preset filled in: what the finishing actually does. */
export interface ImageSettings {
  /** The channel whose canvas and rules apply, or null. */
  preset: PresetName | null;
  /** '#rrggbb' or 'transparent'. */
  background: string;
  shadow: ShadowStyle;
  /** Fraction of the canvas kept empty on each side of the product: (1 - fill) / 2. */
  padding: number;
  /** The product's longer side over the canvas side (for a non-square canvas: the tighter of the two). */
  fill: number;
  size: CanvasSize;
  format: ImageFormat;
}

/** Settings as stored on an image or sent by a caller: every field optional, null meaning "the default". */
export interface ImageSettingsInput {
  preset?: string | null;
  background?: string | null;
  shadow?: string | null;
  padding?: number | null;
  fill?: number | null;
  size?: { width?: number; height?: number } | null;
  format?: string | null;
}

export const DEFAULT_SIZE = 2048;
export const MIN_SIDE = 64;
export const MAX_SIDE = 8000;
export const MAX_PADDING = 0.45;
export const MIN_FILL = 0.3;
export const MAX_FILL = 0.98;

export const DEFAULT_SETTINGS: ImageSettings = Object.freeze({
  preset: null,
  background: '#ffffff',
  shadow: 'soft',
  padding: 0.08,
  fill: 0.84,
  size: Object.freeze({ width: DEFAULT_SIZE, height: DEFAULT_SIZE }),
  format: 'jpeg',
});

/** Bump whenever the rendering changes, so cached finished images are redone. */
const RENDER_VERSION = 2;

const SHADOWS: readonly ShadowStyle[] = ['none', 'soft', 'hard', 'contact'];
const FORMATS: readonly ImageFormat[] = ['jpeg', 'png', 'webp'];
const HEX_COLOUR = /^#[0-9a-f]{6}$/;

const round4 = (n: number) => Math.round(n * 10000) / 10000;

/**
 * Fills in defaults and validates. The layers, weakest first: the defaults, the preset, the explicit
 * fields; absent and null fields both fall through, since settings usually arrive as JSON. `fill`
 * replaces `padding` when both are given. Without an explicit format a transparent background picks
 * PNG (even over a preset's JPEG, whose format check then fails); an explicit JPEG with it is an error.
 */
export function resolveSettings(partial: ImageSettingsInput | null | undefined): ImageSettings {
  if (partial != null && typeof partial !== 'object') throw new RangeError('settings must be an object');
  const p: ImageSettingsInput = partial ?? {};

  let preset: PresetName | null = null;
  if (p.preset != null) {
    if (!isPresetName(p.preset)) throw new RangeError(`preset must be one of ${PRESET_NAMES.join(', ')}`);
    preset = p.preset;
  }
  const base = preset ? PRESETS[preset] : null;

  const rawBackground = p.background ?? base?.background ?? DEFAULT_SETTINGS.background;
  if (typeof rawBackground !== 'string') throw new RangeError('background must be a string');
  const background = rawBackground.trim().toLowerCase();
  if (background !== 'transparent' && !HEX_COLOUR.test(background)) {
    throw new RangeError(`background must be '#rrggbb' or 'transparent', got '${rawBackground}'`);
  }

  const shadow = p.shadow ?? DEFAULT_SETTINGS.shadow;
  if (!SHADOWS.includes(shadow as ShadowStyle)) throw new RangeError(`shadow must be one of ${SHADOWS.join(', ')}`);

  let fill: number;
  if (p.fill != null) {
    // The API takes MIN_FILL..MAX_FILL; settings resolved here before may carry what a padding gave.
    if (typeof p.fill !== 'number' || !Number.isFinite(p.fill) || p.fill < 1 - 2 * MAX_PADDING || p.fill > 1) {
      throw new RangeError(`fill must be a number between ${MIN_FILL} and ${MAX_FILL}`);
    }
    fill = p.fill;
  } else if (p.padding != null) {
    if (typeof p.padding !== 'number' || !Number.isFinite(p.padding) || p.padding < 0 || p.padding > MAX_PADDING) {
      throw new RangeError(`padding must be a number between 0 and ${MAX_PADDING}`);
    }
    fill = 1 - 2 * p.padding;
  } else {
    fill = base?.fill ?? DEFAULT_SETTINGS.fill;
  }

  const size = resolveSize(p.size, base?.size ?? DEFAULT_SETTINGS.size);

  let format: ImageFormat;
  if (p.format != null) {
    if (!FORMATS.includes(p.format as ImageFormat)) throw new RangeError(`format must be one of ${FORMATS.join(', ')}`);
    format = p.format as ImageFormat;
    if (format === 'jpeg' && background === 'transparent') throw new RangeError('jpeg cannot be transparent');
  } else if (background === 'transparent') {
    format = 'png';
  } else {
    format = base?.format ?? DEFAULT_SETTINGS.format;
  }

  return { preset, background, shadow: shadow as ShadowStyle, padding: round4((1 - fill) / 2), fill: round4(fill), size, format };
}

function resolveSize(raw: ImageSettingsInput['size'], fallback: CanvasSize): CanvasSize {
  if (raw == null) return { width: fallback.width, height: fallback.height };
  if (typeof raw !== 'object') throw new RangeError('size must be {width, height}');
  const width = raw.width ?? fallback.width;
  const height = raw.height ?? fallback.height;
  for (const side of [width, height]) {
    if (!Number.isInteger(side) || side < MIN_SIDE || side > MAX_SIDE) {
      throw new RangeError(`size.width and size.height must be integers between ${MIN_SIDE} and ${MAX_SIDE}`);
    }
  }
  return { width, height };
}

/**
 * Key for caching a finished image. The inputs are hashed in a fixed order so the key does not
 * depend on property order; the mask is not part of it, so a caller whose masks can change must fold
 * the mask into `imageSha256`. The preset is left out: it changes the checks, not the pixels.
 */
export function settingsCacheKey(imageSha256: string, settings: ImageSettings, previewSide?: number): string {
  const canonical = JSON.stringify([
    'plinth-finish',
    RENDER_VERSION,
    imageSha256.toLowerCase(),
    settings.size.width,
    settings.size.height,
    previewSide ?? null,
    settings.background.toLowerCase(),
    settings.shadow,
    settings.fill,
    settings.format,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
