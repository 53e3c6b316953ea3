// Plain-JS helpers over 8-bit alpha planes. They run on the main thread, so
// they are written as tight loops over typed arrays: a 2000×2000 mask is 4 MB
// and these passes must stay in the low milliseconds.

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface AlphaPlane {
  data: Buffer;
  width: number;
  height: number;
}

/**
 * Below this a mask value is treated as segmentation noise, so a faint speck
 * far from the product cannot stretch the bounding box and shrink the product.
 */
export const PRODUCT_THRESHOLD = 8;

/**
 * Bounding box of the samples above `threshold` in one channel of an
 * interleaved buffer, or null when nothing is above it.
 */
export function findBounds(
  data: Uint8Array,
  width: number,
  height: number,
  channels: number,
  channel: number,
  threshold = PRODUCT_THRESHOLD,
): Box | null {
  let minX = -1;
  let maxX = -1;
  let minY = -1;
  let maxY = -1;
  // Masks are mostly exact zeros: whole zero stretches are ruled out with a
  // native compare instead of a JS loop. Only possible for packed planes.
  const zeros = channels === 1 ? new Uint8Array(width) : null;
  const isZero = (from: number, to: number, row: number) =>
    zeros !== null && Buffer.compare(data.subarray(row + from, row + to), zeros.subarray(0, to - from)) === 0;
  for (let y = 0; y < height; y++) {
    const row = y * width * channels + channel;
    if (maxX < 0) {
      if (isZero(0, width, row)) continue;
      const first = scanForward(data, row, 0, width, channels, threshold);
      if (first < 0) continue;
      minX = first;
      maxX = scanBackward(data, row, width - 1, first, channels, threshold);
    } else {
      // Only the parts of a row outside the current extent can widen the box,
      // so the (usually product-filled) middle is only looked at when needed.
      const first = isZero(0, minX, row) ? -1 : scanForward(data, row, 0, minX, channels, threshold);
      if (first >= 0) minX = first;
      const last = isZero(maxX + 1, width, row) ? -1 : scanBackward(data, row, width - 1, maxX + 1, channels, threshold);
      if (last >= 0) maxX = last;
      if (first < 0 && last < 0 && scanForward(data, row, minX, maxX + 1, channels, threshold) < 0) continue;
    }
    if (minY < 0) minY = y;
    maxY = y;
  }
  if (maxX < 0) return null;
  return { left: minX, top: minY, width: maxX - minX + 1, height: maxY - minY + 1 };
}

/** First x in [from, to) whose sample exceeds the threshold, or -1. */
function scanForward(data: Uint8Array, row: number, from: number, to: number, channels: number, threshold: number): number {
  for (let x = from; x < to; x++) {
    if (data[row + x * channels] > threshold) return x;
  }
  return -1;
}

/** Last x in [downTo, from] whose sample exceeds the threshold, or -1. */
function scanBackward(data: Uint8Array, row: number, from: number, downTo: number, channels: number, threshold: number): number {
  for (let x = from; x >= downTo; x--) {
    if (data[row + x * channels] > threshold) return x;
  }
  return -1;
}

/** Copies one channel of `box` out of an interleaved buffer into a packed plane. */
export function cropChannel(
  data: Uint8Array,
  width: number,
  channels: number,
  channel: number,
  box: Box,
): AlphaPlane {
  const out = Buffer.allocUnsafe(box.width * box.height);
  if (channels === 1) {
    for (let y = 0; y < box.height; y++) {
      const start = (box.top + y) * width + box.left;
      out.set(data.subarray(start, start + box.width), y * box.width);
    }
  } else {
    let o = 0;
    for (let y = 0; y < box.height; y++) {
      let i = ((box.top + y) * width + box.left) * channels + channel;
      for (let x = 0; x < box.width; x++, i += channels) out[o++] = data[i];
    }
  }
  return { data: out, width: box.width, height: box.height };
}

/**
 * Horizontal extent, as fractions of the plane's width, of the product in its
 * lowest rows: the contact shadow sits under the base, which for a vase or a
 * chair is much narrower than the bounding box.
 */
export function baseSpan(plane: AlphaPlane, rowsFraction = 0.04): { from: number; to: number } {
  const rows = Math.max(1, Math.round(plane.height * rowsFraction));
  let minX = plane.width;
  let maxX = -1;
  for (let y = plane.height - rows; y < plane.height; y++) {
    const row = y * plane.width;
    for (let x = 0; x < plane.width; x++) {
      if (plane.data[row + x] > PRODUCT_THRESHOLD) {
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
      }
    }
  }
  if (maxX < 0) return { from: 0, to: 1 };
  return { from: minX / plane.width, to: (maxX + 1) / plane.width };
}
