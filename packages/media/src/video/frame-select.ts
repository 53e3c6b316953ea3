/**
 * Choosing the frames of a clip worth keeping: sharp ones, each showing something the others do
 * not, spread over the whole clip. Pure functions over precomputed features, so the policy can be
 * tested without video files.
 */

export interface FrameFeatures {
  /** position in time order (candidates are sampled evenly, so this doubles as a clock) */
  index: number;
  /** variance of the Laplacian at the shared scale */
  sharpness: number;
  /** 64-bit difference hash */
  hash: bigint;
  /** 16x16 mean luma, to tell "same view" from "same layout" (dHash alone is coarse) */
  tiny: Uint8Array;
}

/** Hamming distance at or below which two hashes may be the same view. */
export const HASH_DUPLICATE_BITS = 6;
/** Mean absolute luma difference (0–255) of the 16x16 thumbnails below which frames are the same. */
export const TINY_DUPLICATE_DIFF = 6;
/** Flat frames (black, fades, lens cap) have almost no Laplacian energy, whatever the clip. */
const ABSOLUTE_MIN_SHARPNESS = 2;

function boxAverage(grey: Uint8Array, width: number, height: number, outW: number, outH: number): Float64Array {
  const out = new Float64Array(outW * outH);
  for (let oy = 0; oy < outH; oy++) {
    const y0 = Math.floor((oy * height) / outH);
    const y1 = Math.max(y0 + 1, Math.floor(((oy + 1) * height) / outH));
    for (let ox = 0; ox < outW; ox++) {
      const x0 = Math.floor((ox * width) / outW);
      const x1 = Math.max(x0 + 1, Math.floor(((ox + 1) * width) / outW));
      let sum = 0;
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) sum += grey[y * width + x];
      out[oy * outW + ox] = sum / ((y1 - y0) * (x1 - x0));
    }
  }
  return out;
}

/** dHash: 9x8 luma, one bit per horizontal neighbour pair (brighter on the left). */
export function differenceHash(grey: Uint8Array, width: number, height: number): bigint {
  const small = boxAverage(grey, width, height, 9, 8);
  let hash = 0n;
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 8; x++) {
      hash = (hash << 1n) | (small[y * 9 + x] > small[y * 9 + x + 1] ? 1n : 0n);
    }
  }
  return hash;
}

export function tinyThumb(grey: Uint8Array, width: number, height: number): Uint8Array {
  return Uint8Array.from(boxAverage(grey, width, height, 16, 16), (v) => Math.round(v));
}

export function hammingDistance(a: bigint, b: bigint): number {
  let x = a ^ b;
  let count = 0;
  while (x) {
    x &= x - 1n;
    count++;
  }
  return count;
}

export function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

export function nearDuplicate(a: FrameFeatures, b: FrameFeatures): boolean {
  return hammingDistance(a.hash, b.hash) <= HASH_DUPLICATE_BITS && meanAbsDiff(a.tiny, b.tiny) < TINY_DUPLICATE_DIFF;
}

function quantile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))];
}

/**
 * The blur cut-off, relative to the clip: half its median, but never below 30 % of its upper
 * quartile, so a clip that is mostly blurred still has its few crisp frames set the bar.
 */
export function blurThreshold(frames: readonly FrameFeatures[]): number {
  const sorted = frames.map((f) => f.sharpness).sort((a, b) => a - b);
  return Math.max(ABSOLUTE_MIN_SHARPNESS, 0.5 * quantile(sorted, 0.5), 0.3 * quantile(sorted, 0.75));
}

/** Walk in time order; a repeat of a kept view replaces it only if it is sharper. */
function dedupe(frames: readonly FrameFeatures[]): FrameFeatures[] {
  const kept: FrameFeatures[] = [];
  for (const f of frames) {
    const twin = kept.findIndex((k) => nearDuplicate(k, f));
    if (twin === -1) kept.push(f);
    else if (f.sharpness > kept[twin].sharpness) kept[twin] = f;
  }
  return kept;
}

/**
 * Keep `max` frames spread over the clip's timeline: one per equal slice of time (the sharpest),
 * then, while slots remain, the frame farthest in time from those already chosen. Slicing by time
 * rather than by list position keeps a lone view after a long blurred stretch from being dropped.
 */
function spread(frames: readonly FrameFeatures[], max: number, span: number): FrameFeatures[] {
  if (frames.length <= max) return [...frames];
  const chosen = new Set<FrameFeatures>();
  for (let slice = 0; slice < max; slice++) {
    const from = (slice * span) / max;
    const to = ((slice + 1) * span) / max;
    let best: FrameFeatures | null = null;
    for (const f of frames) {
      if (f.index >= from && f.index < to && (!best || f.sharpness > best.sharpness)) best = f;
    }
    if (best) chosen.add(best);
  }
  while (chosen.size < max) {
    let pick: FrameFeatures | null = null;
    let pickGap = -1;
    for (const f of frames) {
      if (chosen.has(f)) continue;
      let gap = Infinity;
      for (const c of chosen) gap = Math.min(gap, Math.abs(c.index - f.index));
      if (gap > pickGap || (gap === pickGap && pick && f.sharpness > pick.sharpness)) {
        pick = f;
        pickGap = gap;
      }
    }
    if (!pick) break;
    chosen.add(pick);
  }
  return [...chosen].sort((a, b) => a.index - b.index);
}

/** Indices (time order) of the frames to keep; empty when nothing is usable. */
export function selectFrames(frames: readonly FrameFeatures[], opts: { min: number; max: number }): number[] {
  const ordered = [...frames].sort((a, b) => a.index - b.index);
  const threshold = blurThreshold(ordered);
  const crisp = ordered.filter((f) => f.sharpness >= threshold);
  let kept = dedupe(crisp);
  if (kept.length < opts.min) {
    // Short of the minimum: admit mildly soft frames, best first, if they add a new view.
    const soft = ordered
      .filter((f) => f.sharpness < threshold && f.sharpness >= Math.max(ABSOLUTE_MIN_SHARPNESS, threshold * 0.5))
      .sort((a, b) => b.sharpness - a.sharpness);
    for (const f of soft) {
      if (kept.length >= opts.min) break;
      if (!kept.some((k) => nearDuplicate(k, f))) kept.push(f);
    }
  }
  const span = ordered.length ? ordered[ordered.length - 1].index + 1 : 0;
  kept = spread(
    kept.sort((a, b) => a.index - b.index),
    opts.max,
    span,
  );
  return kept.map((f) => f.index);
}

/**
 * How far the view moves between two candidates: mean absolute difference of their 16x16 luma
 * thumbnails (0–255). Blur barely changes a 16x16 average, so a blurred frame still measures its
 * place on the path.
 */
export function viewChange(a: FrameFeatures, b: FrameFeatures): number {
  return meanAbsDiff(a.tiny, b.tiny);
}

/**
 * View change (in `viewChange` units) that one kept frame of a walk-around may cover: consecutive
 * kept frames a step apart still share most of what they see, which sequential matching needs.
 */
export const PATH_STEP = 2.5;
/** A walk-around gives COLMAP at most this many frames per second of footage: beyond, they are near repeats. */
export const PATH_FRAMES_PER_SECOND = 3;

/** How many frames a walk-around clip should give: enough steps to cover its motion, bounded by its duration and by [min, max]. */
export function pathFrameCount(totalChange: number, durationSeconds: number, opts: { min: number; max: number }): number {
  const byMotion = Math.ceil(totalChange / PATH_STEP);
  const byDuration = Math.ceil(durationSeconds * PATH_FRAMES_PER_SECOND);
  return Math.max(opts.min, Math.min(opts.max, byMotion, byDuration));
}

/**
 * Frames of a walk-around, for structure from motion: the path (the summed view change from the
 * first candidate) is cut into equal stretches and each stretch gives its sharpest frame, so the
 * kept frames are evenly spaced in what the camera saw, not in time (a pause gives one frame, a fast
 * pan several) and neighbours overlap. Blurred frames are never kept; a stretch with only soft
 * frames gives its best soft one, a stretch of only blur gives none.
 */
export function selectPathFrames(frames: readonly FrameFeatures[], opts: { min: number; max: number; durationSeconds: number }): number[] {
  const ordered = [...frames].sort((a, b) => a.index - b.index);
  const threshold = blurThreshold(ordered);
  // The path is measured over usable frames only: blur shifts a thumbnail a little, and a camera
  // standing still through a shake must not read as moving.
  const usable = ordered.filter((f) => f.sharpness >= Math.max(ABSOLUTE_MIN_SHARPNESS, threshold * 0.5));
  if (!usable.length) return [];
  const along = new Map<FrameFeatures, number>([[usable[0], 0]]);
  for (let i = 1; i < usable.length; i++) along.set(usable[i], along.get(usable[i - 1])! + viewChange(usable[i - 1], usable[i]));
  const total = along.get(usable[usable.length - 1])!;
  const count = total < PATH_STEP ? 1 : pathFrameCount(total, opts.durationSeconds, opts);

  // A crisp frame beats any soft one; among equals, the sharper.
  const rank = (f: FrameFeatures) => (f.sharpness >= threshold ? 1 : 0);
  const best: (FrameFeatures | null)[] = Array.from({ length: count }, () => null);
  for (const f of usable) {
    const stretch = count === 1 ? 0 : Math.min(count - 1, Math.floor((along.get(f)! / total) * count));
    const held = best[stretch];
    if (!held || rank(f) > rank(held) || (rank(f) === rank(held) && f.sharpness > held.sharpness)) best[stretch] = f;
  }
  const kept = best.filter((f): f is FrameFeatures => f !== null);
  // Stretches without a usable frame left gaps: while short of the minimum, add the crisp frames
  // farthest along the path from any kept one (never a repeat of a kept view).
  while (kept.length < Math.min(opts.min, count)) {
    let pick: FrameFeatures | null = null;
    let pickGap = PATH_STEP / 2;
    for (const f of usable) {
      if (rank(f) === 0 || kept.includes(f)) continue;
      const gap = Math.min(...kept.map((k) => Math.abs(along.get(k)! - along.get(f)!)));
      if (gap > pickGap) {
        pick = f;
        pickGap = gap;
      }
    }
    if (!pick) break;
    kept.push(pick);
  }
  return kept.map((f) => f.index).sort((a, b) => a - b);
}
