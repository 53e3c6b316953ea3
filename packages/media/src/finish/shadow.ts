import sharp from 'sharp';
import { baseSpan, type AlphaPlane, type Box } from './mask-bounds.js';

export type ShadowStyle = 'none' | 'soft' | 'hard' | 'contact';

/**
 * The shadow is rendered at a fraction of the canvas resolution and enlarged
 * while painting the canvas: a blurred shadow has no detail to lose, and
 * blurring a 2048² plane with a ~60 px sigma would cost more than the rest of
 * the finishing put together. The reduction follows the blur, keeping about
 * SAMPLES_PER_SIGMA low-resolution samples per sigma so that the bilinear
 * enlargement stays smooth, and never goes beyond 1/MAX_SCALE so the contact
 * ellipse keeps its shape.
 */
const SAMPLES_PER_SIGMA = 3;
const MAX_SCALE = 8;

/** Shadow coverage (0..255 before `opacity`) over the whole canvas, at low resolution. */
export interface ShadowMap {
  coverage: Buffer;
  width: number;
  height: number;
  /** Canvas px per coverage sample, on both axes. */
  scale: number;
  opacity: number;
}

export interface ShadowInput {
  /** Output canvas in px. */
  width: number;
  height: number;
  shadow: Exclude<ShadowStyle, 'none'>;
  /** Where the product lands on the full-size canvas. */
  placement: Box;
  /** The product's alpha, cropped to its bounding box, at source resolution. */
  silhouette: AlphaPlane;
}

interface DropShadow {
  /** Offsets and blur are fractions of the placed product's longer side, so a
   * product shrunk by a large padding gets a proportionally smaller shadow. */
  dx: number;
  dy: number;
  sigma: number;
  opacity: number;
}

const DROP_SHADOWS: Record<'soft' | 'hard', DropShadow> = {
  soft: { dx: 0.03, dy: 0.045, sigma: 0.035, opacity: 0.35 },
  hard: { dx: 0.02, dy: 0.03, sigma: 0.006, opacity: 0.6 },
};

const CONTACT = {
  opacity: 0.55,
  /** Ellipse half-width relative to half the base width: a little wider than
   * the base so the shadow shows on both sides of it. */
  spread: 1.1,
  /** Height/width ratio of the ellipse, bounded to fractions of the product. */
  flatness: 0.14,
  minHeight: 0.012,
  maxHeight: 0.05,
  sigma: 0.01,
};

/** vips rejects smaller sigmas; below this a blur would be invisible anyway. */
const MIN_SIGMA = 0.3;

export async function renderShadow(input: ShadowInput): Promise<ShadowMap> {
  const longSide = Math.max(input.placement.width, input.placement.height);
  const sigma = (input.shadow === 'contact' ? CONTACT.sigma : DROP_SHADOWS[input.shadow].sigma) * longSide;
  const scale = Math.min(MAX_SCALE, Math.max(1, Math.round(sigma / SAMPLES_PER_SIGMA)));
  const width = Math.max(2, Math.ceil(input.width / scale));
  const height = Math.max(2, Math.ceil(input.height / scale));
  const f = 1 / scale;

  let plane: Buffer;
  let opacity: number;
  if (input.shadow === 'contact') {
    plane = drawContactEllipse(width, height, f, longSide, input.placement, input.silhouette);
    opacity = CONTACT.opacity;
  } else {
    const spec = DROP_SHADOWS[input.shadow];
    plane = drawFootprint(width, height, f, longSide, input.placement, input.silhouette, spec);
    opacity = spec.opacity;
  }
  const coverage = await sharp(plane, { raw: { width, height, channels: 1 } })
    .blur(Math.max(MIN_SIGMA, sigma * f))
    // Without this sharp widens single-band output to sRGB.
    .toColourspace('b-w')
    .raw()
    .toBuffer();
  return { coverage, width, height, scale, opacity };
}

/**
 * A shadow cast on the floor from where the product stands: each column of the mask's bottom rows
 * (its footprint, soft edges included) darkens a band of floor just below and behind the base, falling
 * off away from it and leaning a little away from the light. A product's shadow follows its real base
 * (the feet of a chair, the round bottom of a bottle), not its bounding box.
 */
function drawFootprint(side: number, rows: number, f: number, longSide: number, placement: Box, silhouette: AlphaPlane, spec: DropShadow): Buffer {
  const plane = Buffer.alloc(side * rows);
  const weights = footprint(silhouette, 0.06);
  const width = Math.max(1, Math.round(placement.width * f));
  const baseY = (placement.top + placement.height) * f;
  // Depth of the shadow on the floor: a flattened copy of the product's presence, as from a high light.
  const depth = Math.max(1.5, spec.dy * 2.2 * longSide * f);
  const lean = spec.dx * longSide * f;
  const above = depth * 0.35;
  for (let c = 0; c < width; c++) {
    const w = weights[Math.min(weights.length - 1, Math.floor((c / width) * weights.length))];
    if (w <= 0) continue;
    for (let y = Math.max(0, Math.floor(baseY - above)); y < Math.min(rows, Math.ceil(baseY + depth)); y++) {
      const t = (y + 0.5 - baseY) / (y + 0.5 >= baseY ? depth : above);
      const k = Math.max(0, 1 - Math.abs(t));
      const x = Math.round(placement.left * f + c + lean * Math.max(0, t));
      if (x < 0 || x >= side) continue;
      const v = Math.round(255 * w * k * Math.sqrt(k));
      const o = y * side + x;
      if (v > plane[o]) plane[o] = v;
    }
  }
  return plane;
}

/** Per column of the silhouette, how much of the product touches the floor (0..1) in its bottom rows. */
function footprint(silhouette: AlphaPlane, rowsFraction: number): Float32Array {
  const out = new Float32Array(silhouette.width);
  const rows = Math.max(1, Math.round(silhouette.height * rowsFraction));
  for (let y = silhouette.height - rows; y < silhouette.height; y++) {
    const row = y * silhouette.width;
    for (let x = 0; x < silhouette.width; x++) out[x] = Math.max(out[x], silhouette.data[row + x] / 255);
  }
  return out;
}

function drawContactEllipse(
  side: number,
  rows: number,
  f: number,
  longSide: number,
  placement: Box,
  silhouette: AlphaPlane,
): Buffer {
  const plane = Buffer.alloc(side * rows);
  const span = baseSpan(silhouette);
  const baseWidth = Math.max((span.to - span.from) * placement.width, 0.1 * placement.width);
  const cx = (placement.left + ((span.from + span.to) / 2) * placement.width) * f;
  // Centred on the base line: the upper half is hidden behind the product and
  // the lower half reads as the shadow on the floor.
  const cy = (placement.top + placement.height) * f;
  const rx = Math.max(1, (baseWidth / 2) * CONTACT.spread * f);
  const ry = Math.max(
    1,
    Math.min(Math.max(rx * CONTACT.flatness, CONTACT.minHeight * longSide * f), CONTACT.maxHeight * longSide * f),
  );
  const yStart = Math.max(0, Math.floor(cy - ry));
  const yEnd = Math.min(rows - 1, Math.ceil(cy + ry));
  const xStart = Math.max(0, Math.floor(cx - rx));
  const xEnd = Math.min(side - 1, Math.ceil(cx + rx));
  for (let y = yStart; y <= yEnd; y++) {
    const ny = (y + 0.5 - cy) / ry;
    for (let x = xStart; x <= xEnd; x++) {
      const nx = (x + 0.5 - cx) / rx;
      const r2 = nx * nx + ny * ny;
      if (r2 >= 1) continue;
      // Falls off faster than linear so the centre reads darkest, as the floor
      // right under an object gets the least light.
      const k = 1 - r2;
      plane[y * side + x] = Math.round(255 * k * Math.sqrt(k));
    }
  }
  return plane;
}

/**
 * Fades the coverage to nothing towards the edges of `clip` (canvas px), so that the hard clip while
 * painting never shows as a line and the shadow stays inside the canvas and clear of its outer band.
 * A sample reaches one sample's spacing past its centre when enlarged, hence the `scale` kept clear.
 */
export function confineShadow(map: ShadowMap, clip: Box, fade: number): void {
  const { coverage, width, height, scale } = map;
  const right = clip.left + clip.width;
  const bottom = clip.top + clip.height;
  const ramp = (d: number) => Math.min(1, Math.max(0, (d - scale) / Math.max(1, fade)));
  const columns = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    const cx = (x + 0.5) * scale;
    columns[x] = ramp(Math.min(cx - clip.left, right - cx));
  }
  for (let y = 0; y < height; y++) {
    const cy = (y + 0.5) * scale;
    const wy = ramp(Math.min(cy - clip.top, bottom - cy));
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const w = wy * columns[x];
      if (w < 1) coverage[row + x] = Math.round(coverage[row + x] * w);
    }
  }
}

/** Canvas rows [top, bottom) where the shadow visibly darkens the background, or null. */
export function shadowRows(map: ShadowMap): { top: number; bottom: number } | null {
  // Below this a sample changes no 8-bit channel of the background.
  const visible = Math.ceil(0.5 / map.opacity);
  let top = -1;
  let bottom = -1;
  for (let y = 0; y < map.height; y++) {
    const row = map.coverage.subarray(y * map.width, (y + 1) * map.width);
    if (row.some((v) => v >= visible)) {
      if (top < 0) top = y;
      bottom = y + 1;
    }
  }
  if (top < 0) return null;
  return { top: top * map.scale, bottom: bottom * map.scale };
}
