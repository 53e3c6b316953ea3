// The channels a finished image is made for (DESIGN section 16). A preset fixes what the finishing
// makes (canvas, fill, background, format) and the rules its compliance is checked against; the
// rules are read against the finished pixels, never against these numbers.
import type { ImageFormat } from './finish.js';

export const PRESET_NAMES = ['amazon_main', 'google_shopping', 'ebay', 'shopify', 'square_1080'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

/** How the outer band of the image (2% of each side) must look. */
export type BandRule = 'pure_white' | 'uniform';

export interface PresetRules {
  /** The product's longer side over the canvas side must lie in [min, max]. */
  fill: { min: number; max: number } | null;
  band: BandRule | null;
  format: ImageFormat | null;
  maxBytes: number | null;
  maxMegapixels: number | null;
}

export interface Preset {
  name: PresetName;
  /** The channel's name as a person reads it. */
  channel: string;
  size: { width: number; height: number };
  fill: number;
  /** null: the image's own background. */
  background: string | null;
  /** null: the image's own format. */
  format: ImageFormat | null;
  rules: PresetRules;
}

const MB = 1_000_000;

export const PRESETS: Readonly<Record<PresetName, Preset>> = Object.freeze({
  amazon_main: {
    name: 'amazon_main',
    channel: 'Amazon',
    size: { width: 2000, height: 2000 },
    fill: 0.88,
    background: '#ffffff',
    format: 'jpeg',
    rules: { fill: { min: 0.85, max: 1 }, band: 'pure_white', format: 'jpeg', maxBytes: 10 * MB, maxMegapixels: null },
  },
  google_shopping: {
    name: 'google_shopping',
    channel: 'Google Shopping',
    size: { width: 1600, height: 1600 },
    fill: 0.85,
    background: '#ffffff',
    format: 'jpeg',
    rules: { fill: { min: 0.75, max: 0.9 }, band: 'pure_white', format: 'jpeg', maxBytes: 16 * MB, maxMegapixels: null },
  },
  ebay: {
    name: 'ebay',
    channel: 'eBay',
    size: { width: 1600, height: 1600 },
    fill: 0.85,
    background: '#ffffff',
    format: 'jpeg',
    rules: { fill: null, band: 'uniform', format: 'jpeg', maxBytes: null, maxMegapixels: null },
  },
  shopify: {
    name: 'shopify',
    channel: 'Shopify',
    size: { width: 2048, height: 2048 },
    fill: 0.84,
    background: null,
    format: null,
    rules: { fill: null, band: null, format: null, maxBytes: null, maxMegapixels: 20 },
  },
  square_1080: {
    name: 'square_1080',
    channel: 'a 1080 px square',
    size: { width: 1080, height: 1080 },
    fill: 0.8,
    background: null,
    format: 'jpeg',
    rules: { fill: null, band: null, format: 'jpeg', maxBytes: null, maxMegapixels: null },
  },
});

export function isPresetName(value: unknown): value is PresetName {
  return typeof value === 'string' && (PRESET_NAMES as readonly string[]).includes(value);
}
