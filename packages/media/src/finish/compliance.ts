// Whether a finished image meets its channel's rules (DESIGN section 16). Every number here is
// measured: on the encoded file as any reader would decode it, and on the cut-out as it was laid on
// the canvas. The settings that were asked for are never read, so a fill that rounding, a clamp or an
// override moved, or a band that the encoder dirtied, is caught.
import sharp from 'sharp';
import { PRESETS, type PresetName } from './presets.js';
import type { ImageFormat } from './settings.js';

export const COMPLIANCE_CODES = ['size', 'fill', 'background', 'format', 'bytes', 'not_cropped', 'cutout'] as const;
export type ComplianceCode = (typeof COMPLIANCE_CODES)[number];

export type Edge = 'left' | 'top' | 'right' | 'bottom';

export interface ComplianceCheck {
  code: ComplianceCode;
  passed: boolean;
  measured: unknown;
  required: unknown;
}

export interface Compliance {
  preset: PresetName | null;
  passed: boolean;
  checks: ComplianceCheck[];
}

export interface FinishMeasurements {
  width: number;
  height: number;
  /** What the file's bytes are, by their signature. */
  format: ImageFormat | 'unknown';
  bytes: number;
  /** The placed cut-out's longer side over the canvas side (the tighter axis on a non-square canvas). */
  fill: number;
  band: BandMeasurement;
  /** Edges of the source photo that the product's cut-out touches: a product cut off there stays cut off. */
  edgesTouched: Edge[];
}

export interface BandMeasurement {
  /** Fraction of the outer band's pixels that are exactly 255,255,255 (and opaque). */
  pureWhite: number;
  /** Fraction of the outer band's pixels within BAND_TOLERANCE of its corner colour. */
  uniform: number;
}

/** The outer band is 2% of each side. */
export const BAND_FRACTION = 0.02;
/** Levels per channel a band pixel may differ from the band's colour and still read as the same. */
export const BAND_TOLERANCE = 3;

export function bandWidths(width: number, height: number): { x: number; y: number } {
  return { x: Math.max(1, Math.ceil(width * BAND_FRACTION)), y: Math.max(1, Math.ceil(height * BAND_FRACTION)) };
}

export function sniffFormat(data: Buffer): FinishMeasurements['format'] {
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (data.length >= 12 && data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return 'unknown';
}

/** Decodes the file and measures what a channel checks on it. */
export async function measureFile(data: Buffer): Promise<Pick<FinishMeasurements, 'width' | 'height' | 'format' | 'bytes' | 'band'>> {
  const { data: pixels, info } = await sharp(data).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, format: sniffFormat(data), bytes: data.length, band: measureBand(pixels, info.width, info.height) };
}

/** `rgba` is straight RGBA, `width` × `height`. */
export function measureBand(rgba: Buffer, width: number, height: number): BandMeasurement {
  const band = bandWidths(width, height);
  const corner = [rgba[0], rgba[1], rgba[2], rgba[3]];
  let total = 0;
  let white = 0;
  let same = 0;
  for (let y = 0; y < height; y++) {
    const inRowBand = y < band.y || y >= height - band.y;
    for (let x = 0; x < width; x++) {
      if (!inRowBand && x >= band.x && x < width - band.x) {
        x = width - band.x - 1;
        continue;
      }
      const o = (y * width + x) * 4;
      total++;
      if (rgba[o] === 255 && rgba[o + 1] === 255 && rgba[o + 2] === 255 && rgba[o + 3] === 255) white++;
      if (
        Math.abs(rgba[o] - corner[0]) <= BAND_TOLERANCE &&
        Math.abs(rgba[o + 1] - corner[1]) <= BAND_TOLERANCE &&
        Math.abs(rgba[o + 2] - corner[2]) <= BAND_TOLERANCE &&
        Math.abs(rgba[o + 3] - corner[3]) <= BAND_TOLERANCE
      ) {
        same++;
      }
    }
  }
  return { pureWhite: round(white / total, 6), uniform: round(same / total, 6) };
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * The checks for `preset` (only the generic ones without a preset). `cutoutStatus` is the image's
 * cut-out status as the segmenter and any reviewer left it: the image record holds it, not the file.
 */
export function evaluateCompliance(m: FinishMeasurements, preset: PresetName | null, cutoutStatus: string | null): Compliance {
  const checks: ComplianceCheck[] = [];
  if (preset) {
    const p = PRESETS[preset];
    const { rules } = p;
    const megapixels = (m.width * m.height) / 1e6;
    checks.push({
      code: 'size',
      passed: m.width === p.size.width && m.height === p.size.height && (rules.maxMegapixels === null || megapixels <= rules.maxMegapixels),
      measured: { width: m.width, height: m.height },
      required: rules.maxMegapixels === null ? { ...p.size } : { ...p.size, max_megapixels: rules.maxMegapixels },
    });
    if (rules.fill) {
      checks.push({ code: 'fill', passed: m.fill >= rules.fill.min && m.fill <= rules.fill.max, measured: round(m.fill), required: { ...rules.fill } });
    }
    if (rules.band === 'pure_white') {
      checks.push({ code: 'background', passed: m.band.pureWhite === 1, measured: { outer_band_pure_white: m.band.pureWhite }, required: { outer_band_pure_white: 1 } });
    } else if (rules.band === 'uniform') {
      checks.push({ code: 'background', passed: m.band.uniform === 1, measured: { outer_band_uniform: m.band.uniform }, required: { outer_band_uniform: 1 } });
    }
    if (rules.format) checks.push({ code: 'format', passed: m.format === rules.format, measured: m.format, required: rules.format });
    if (rules.maxBytes !== null) checks.push({ code: 'bytes', passed: m.bytes <= rules.maxBytes, measured: m.bytes, required: { max: rules.maxBytes } });
  }
  checks.push({
    code: 'not_cropped',
    passed: m.edgesTouched.length === 0,
    measured: { edges_touched: [...m.edgesTouched] },
    required: { edges_touched: [] },
  });
  checks.push({ code: 'cutout', passed: cutoutStatus === 'ok', measured: cutoutStatus ?? 'unknown', required: 'ok' });
  return { preset, passed: checks.every((c) => c.passed), checks };
}

export const failedCodes = (c: Compliance): ComplianceCode[] => c.checks.filter((x) => !x.passed).map((x) => x.code);
