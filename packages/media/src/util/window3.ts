/**
 * Writes into `out` the indices of the pixels of the 3×3 window around (x, y) that lie inside a
 * width × height image, the centre included, and returns how many there are (4 to 9). Filling a
 * caller's buffer instead of taking a callback keeps per-pixel loops over large images free of
 * allocations.
 */
export function window3(x: number, y: number, width: number, height: number, out: Int32Array): number {
  let n = 0;
  for (let yy = Math.max(0, y - 1); yy <= Math.min(height - 1, y + 1); yy++) {
    for (let xx = Math.max(0, x - 1); xx <= Math.min(width - 1, x + 1); xx++) out[n++] = yy * width + xx;
  }
  return n;
}
