import type { HandheldPath, MatScene } from '../generate/posed-fixtures.test-support.js';
import { BOARD_ORIGIN_MM, boardRects, MAT_SQUARE_MM, MAT_SQUARES_X, MAT_SQUARES_Y, PAGE_MM } from './board.js';

// The plain vase standing on the printed mat, as the mat's acceptance tests photograph it.

/**
 * Standing back far enough to see most of the mat round the vase, from low to high. The lowest photos
 * matter: a top seen only from above grows by its radius × tan(elevation) in the hull.
 */
export const MAT_PATH: HandheldPath = { distance: [0.4, 0.5], elevationDeg: [18, 50], aimY: 0.05 };

// The board's centre is the world's origin; the page's centre lies where the layout puts it from there.
const boardCentreMm = { x: BOARD_ORIGIN_MM.x + (MAT_SQUARES_X * MAT_SQUARE_MM) / 2, y: BOARD_ORIGIN_MM.y + (MAT_SQUARES_Y * MAT_SQUARE_MM) / 2 };
export const MAT_SCENE: MatScene = {
  rects: boardRects(),
  pageMm: PAGE_MM,
  pageCentre: [(PAGE_MM.width / 2 - boardCentreMm.x) / 1000, (PAGE_MM.height / 2 - boardCentreMm.y) / 1000],
  productAt: [0.012, -0.018],
  pxPerMm: 8,
};
