import { window3 } from '../util/window3.js';

/**
 * Only texels this solidly inside the mask keep their own colour: the soft rim of a
 * cut-out mixes in backdrop, and a surface seen edge-on samples exactly that rim.
 */
export const SOLID_COVERAGE = 250;

/**
 * Grows the product's colours a few pixels out over the background, in place.
 * Texture filtering and mipmaps blend texels across a chart's edge; without this the
 * studio backdrop would show as a pale fringe along seams and cut-out outlines.
 */
export function bleedColours(rgb: Uint8Array, coverage: Uint8Array, width: number, height: number, passes: number, threshold = SOLID_COVERAGE): void {
  const known = new Uint8Array(width * height);
  for (let i = 0; i < known.length; i++) known[i] = coverage[i] >= threshold ? 1 : 0;
  const frontier: number[] = [];
  const around = new Int32Array(9);
  for (let pass = 0; pass < passes; pass++) {
    frontier.length = 0;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        if (known[i]) continue;
        let r = 0;
        let g = 0;
        let b = 0;
        let n = 0;
        const count = window3(x, y, width, height, around);
        for (let k = 0; k < count; k++) {
          const j = around[k];
          if (known[j] !== 1) continue;
          r += rgb[j * 3];
          g += rgb[j * 3 + 1];
          b += rgb[j * 3 + 2];
          n++;
        }
        if (n === 0) continue;
        rgb[i * 3] = Math.round(r / n);
        rgb[i * 3 + 1] = Math.round(g / n);
        rgb[i * 3 + 2] = Math.round(b / n);
        frontier.push(i);
      }
    }
    if (frontier.length === 0) return;
    // Marked only after the pass, so each pass grows the colours by exactly one pixel.
    for (const i of frontier) known[i] = 1;
  }
}
