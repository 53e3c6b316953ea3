// The capture mat: a ChArUco board (a chessboard whose white squares hold ArUco markers) printed on one A4
// page. A product stands on it; the chessboard corners give each photo's camera and the real scale even when
// the product itself has no texture to match. The layout follows OpenCV's CharucoBoard exactly (top-left
// square black, markers numbered row by row over the white squares), so OpenCV's detector reads the print.

/** Squares across and down; 5 × 7 of 36 mm fill A4 portrait with room for the caption. */
export const MAT_SQUARES_X = 5;
export const MAT_SQUARES_Y = 7;
export const MAT_SQUARE_MM = 36;
/** A marker fills three quarters of its square: 6 cells (border and 4 × 4 bits) of 4.5 mm. */
export const MAT_MARKER_MM = 27;
export const MAT_DICTIONARY = 'DICT_4X4_50' as const;
export const PAGE_MM = { width: 210, height: 297 } as const;
/** The board's top-left corner on the page (mm from the page's top-left); centred across. */
export const BOARD_ORIGIN_MM = { x: (PAGE_MM.width - MAT_SQUARES_X * MAT_SQUARE_MM) / 2, y: 12 } as const;
export const RULER_MM = 50;

// The inner 4 × 4 bits (row by row, 1 = white) of DICT_4X4_50's first 17 markers, as OpenCV draws them;
// mat.test.ts checks every one against OpenCV's own dictionary.
const MARKER_BITS = [
  0xb532, 0x0f9a, 0x332d, 0x9946, 0x549e, 0x79cd, 0x9e2e, 0xc4f2, 0xfeda, 0xcf56, 0xf991, 0x11a7, 0x0eb7, 0x2a0f, 0x24b1, 0x263e, 0x4665,
];
export const MAT_MARKER_COUNT = Math.floor((MAT_SQUARES_X * MAT_SQUARES_Y) / 2);

/** A filled black rectangle on the page, mm, y down from the page's top. */
export interface MatRect {
  x: number;
  y: number;
  w: number;
  h: number;
  kind: 'square' | 'marker' | 'ruler';
}

/** Whether bit (row, col) of marker `id` is white. */
export function markerBit(id: number, row: number, col: number): boolean {
  return ((MARKER_BITS[id] >> (15 - (row * 4 + col))) & 1) === 1;
}

/** Every black shape of the board: the chessboard's black squares and each marker's black cells (merged along rows). */
export function boardRects(): MatRect[] {
  const rects: MatRect[] = [];
  const cell = MAT_MARKER_MM / 6;
  const inset = (MAT_SQUARE_MM - MAT_MARKER_MM) / 2;
  let id = 0;
  for (let row = 0; row < MAT_SQUARES_Y; row++) {
    for (let col = 0; col < MAT_SQUARES_X; col++) {
      const x = BOARD_ORIGIN_MM.x + col * MAT_SQUARE_MM;
      const y = BOARD_ORIGIN_MM.y + row * MAT_SQUARE_MM;
      if ((row + col) % 2 === 0) {
        rects.push({ x, y, w: MAT_SQUARE_MM, h: MAT_SQUARE_MM, kind: 'square' });
        continue;
      }
      for (let r = 0; r < 6; r++) {
        let start = -1;
        for (let c = 0; c <= 6; c++) {
          const black = c < 6 && (r === 0 || r === 5 || c === 0 || c === 5 || !markerBit(id, r - 1, c - 1));
          if (black && start < 0) start = c;
          if (!black && start >= 0) {
            rects.push({ x: x + inset + start * cell, y: y + inset + r * cell, w: (c - start) * cell, h: cell, kind: 'marker' });
            start = -1;
          }
        }
      }
      id++;
    }
  }
  return rects;
}

/** A 50 mm check ruler under the board: a bar with ticks every 10 mm. */
export function rulerRects(): MatRect[] {
  const x0 = BOARD_ORIGIN_MM.x;
  const y0 = BOARD_ORIGIN_MM.y + MAT_SQUARES_Y * MAT_SQUARE_MM + 22;
  const rects: MatRect[] = [{ x: x0, y: y0, w: RULER_MM, h: 1, kind: 'ruler' }];
  for (let mm = 0; mm <= RULER_MM; mm += 10) {
    // The end ticks' outer edges are the 50 mm; the others are centred on their millimetre.
    const x = x0 + (mm === 0 ? 0 : mm === RULER_MM ? mm - 0.3 : mm - 0.15);
    rects.push({ x, y: y0 - 4, w: 0.3, h: 4, kind: 'ruler' });
  }
  return rects;
}

/**
 * The chessboard's inner corners in OpenCV's numbering (row by row), in metres in the mat's frame: origin at
 * the board's centre, y up (out of the paper), x to the right and z towards the reader of the printed page.
 */
export function matCorners(): [number, number, number][] {
  const s = MAT_SQUARE_MM / 1000;
  const corners: [number, number, number][] = [];
  for (let row = 1; row < MAT_SQUARES_Y; row++) {
    for (let col = 1; col < MAT_SQUARES_X; col++) corners.push([col * s - (MAT_SQUARES_X * s) / 2, 0, row * s - (MAT_SQUARES_Y * s) / 2]);
  }
  return corners;
}
