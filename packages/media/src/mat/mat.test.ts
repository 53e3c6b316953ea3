import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { opencv } from '../segment/opencv.js';
import { BOARD_ORIGIN_MM, boardRects, MAT_MARKER_COUNT, MAT_SQUARE_MM, MAT_SQUARES_X, MAT_SQUARES_Y, markerBit, PAGE_MM, RULER_MM, rulerRects } from './board.js';
import { captureMatPdf, MAT_CAPTION } from './mat-pdf.js';
import { recoverCamerasFromMat } from './mat-poses.js';

const PT_PER_MM = 72 / 25.4;

/** The page's content stream and its filled rectangles in millimetres, read back through the stream's `cm`. */
function readPdf(pdf: Buffer) {
  const text = pdf.toString('latin1');
  const stream = /stream\n([\s\S]*?)endstream/.exec(text)![1];
  const length = Number(/\/Length (\d+)/.exec(text)![1]);
  const cm = /^([-\d.]+) 0 0 ([-\d.]+) 0 ([-\d.]+) cm$/m.exec(stream)!;
  const [a, d, f] = [Number(cm[1]), Number(cm[2]), Number(cm[3])];
  const rects = [...stream.matchAll(/^([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) re$/gm)].map((m) => {
    const [x, y, w, h] = m.slice(1).map(Number);
    // To points on the page (origin bottom left), then to mm.
    return { x: (a * x) / PT_PER_MM, y: (d * y + f) / PT_PER_MM, w: (a * w) / PT_PER_MM, h: (-d * h) / PT_PER_MM };
  });
  return { text, stream, length, rects };
}

describe('the capture mat PDF', () => {
  it('is a well-formed one-page PDF whose cross-reference table points at its objects', () => {
    const pdf = captureMatPdf();
    const { text, stream, length } = readPdf(pdf);
    expect(text.startsWith('%PDF-1.4\n')).toBe(true);
    expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
    expect(Buffer.byteLength(stream, 'latin1')).toBe(length);
    const xref = Number(/startxref\n(\d+)/.exec(text)![1]);
    expect(text.slice(xref, xref + 4)).toBe('xref');
    const offsets = [...text.slice(xref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    expect(offsets).toHaveLength(5);
    offsets.forEach((offset, i) => expect(text.slice(offset).startsWith(`${i + 1} 0 obj`)).toBe(true));
    const box = /\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/.exec(text)!;
    expect(Number(box[1]) / PT_PER_MM).toBeCloseTo(PAGE_MM.width, 3);
    expect(Number(box[2]) / PT_PER_MM).toBeCloseTo(PAGE_MM.height, 3);
    expect(text).toContain('(Plinth capture mat \\227 print at 100% \\(no scaling\\); square = 36 mm)');
    expect(MAT_CAPTION).toContain(`square = ${MAT_SQUARE_MM} mm`);
    expect(captureMatPdf().equals(pdf)).toBe(true);
  });

  it('draws every black square exactly 36 mm wide on a 5 × 7 grid, and a 50 mm ruler', () => {
    const { rects } = readPdf(captureMatPdf());
    const squares = rects.filter((r) => Math.abs(r.w - MAT_SQUARE_MM) < 0.5);
    expect(squares).toHaveLength(Math.ceil((MAT_SQUARES_X * MAT_SQUARES_Y) / 2));
    for (const s of squares) {
      expect(s.w).toBeCloseTo(MAT_SQUARE_MM, 4);
      expect(s.h).toBeCloseTo(MAT_SQUARE_MM, 4);
      // On the grid: whole squares from the board's corner (measured from the page's top).
      const col = (s.x - BOARD_ORIGIN_MM.x) / MAT_SQUARE_MM;
      const row = (PAGE_MM.height - s.y - BOARD_ORIGIN_MM.y) / MAT_SQUARE_MM;
      expect(Math.abs(col - Math.round(col))).toBeLessThan(1e-4);
      expect(Math.abs(row - Math.round(row))).toBeLessThan(1e-4);
      expect(Math.abs((Math.round(col) + Math.round(row)) % 2)).toBe(0);
    }
    const ruler = rulerRects();
    const bar = rects.find((r) => Math.abs(r.w - RULER_MM) < 1e-3)!;
    expect(bar.w).toBeCloseTo(RULER_MM, 4);
    const ticks = rects.slice(-ruler.length + 1);
    expect(ticks[ticks.length - 1].x + ticks[ticks.length - 1].w - ticks[0].x).toBeCloseTo(RULER_MM, 4);
  });

  it('holds the markers of OpenCV\u2019s DICT_4X4_50, numbered as its ChArUco board numbers them', async () => {
    const { cv } = await opencv();
    const dictionary = (cv as any).getPredefinedDictionary((cv as any).DICT_4X4_50);
    for (let id = 0; id < MAT_MARKER_COUNT; id++) {
      const marker = new cv.Mat();
      dictionary.generateImageMarker(id, 6, marker, 1);
      for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) expect(markerBit(id, r, c), `marker ${id} bit ${r},${c}`).toBe(marker.ucharAt(r + 1, c + 1) > 0);
      marker.delete();
    }
  });
});

/** The page at `pxPerMm`, white paper with the board's black shapes, as a PNG. */
async function rasterise(pxPerMm: number): Promise<Buffer> {
  const width = Math.round(PAGE_MM.width * pxPerMm);
  const height = Math.round(PAGE_MM.height * pxPerMm);
  const pixels = Buffer.alloc(width * height, 255);
  for (const r of boardRects()) {
    for (let y = Math.round(r.y * pxPerMm); y < Math.round((r.y + r.h) * pxPerMm); y++) {
      pixels.fill(0, y * width + Math.round(r.x * pxPerMm), y * width + Math.round((r.x + r.w) * pxPerMm));
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 1 } }).png().toBuffer();
}

describe('reading the mat', () => {
  it('finds no mat in photos without one', async () => {
    const plain = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#c0c0c0' } }).png().toBuffer();
    const recovery = await recoverCamerasFromMat({ images: [plain, plain, plain] });
    expect(recovery.cameras).toHaveLength(0);
    expect(recovery.viewsTotal).toBe(3);
  });

  it('finds every chessboard corner of the drawn layout, numbered and placed as OpenCV’s board says', async () => {
    const { cv } = await opencv();
    const png = await rasterise(3);
    const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
    const c = cv as any;
    const dictionary = c.getPredefinedDictionary(c.DICT_4X4_50);
    const board = new c.aruco_CharucoBoard(new c.Size(MAT_SQUARES_X, MAT_SQUARES_Y), MAT_SQUARE_MM, 27, dictionary, new c.Mat());
    const detector = new c.aruco_CharucoDetector(board, new c.aruco_CharucoParameters(), new c.aruco_DetectorParameters(), new c.aruco_RefineParameters(10, 3, true));
    const gray = c.matFromArray(info.height, info.width, c.CV_8UC1, data);
    const [corners, ids, markers, markerIds] = [new c.Mat(), new c.Mat(), new c.MatVector(), new c.Mat()];
    detector.detectBoard(gray, corners, ids, markers, markerIds);
    expect(ids.rows).toBe((MAT_SQUARES_X - 1) * (MAT_SQUARES_Y - 1));
    for (let i = 0; i < ids.rows; i++) {
      const id = ids.data32S[i];
      const col = (id % (MAT_SQUARES_X - 1)) + 1;
      const row = Math.floor(id / (MAT_SQUARES_X - 1)) + 1;
      // An edge drawn at k px is found at k: pixel centres at integer + 0.5, PosedCamera's convention.
      expect(Math.abs(corners.data32F[2 * i] - (BOARD_ORIGIN_MM.x + col * MAT_SQUARE_MM) * 3)).toBeLessThan(0.25);
      expect(Math.abs(corners.data32F[2 * i + 1] - (BOARD_ORIGIN_MM.y + row * MAT_SQUARE_MM) * 3)).toBeLessThan(0.25);
    }
    for (const m of [gray, corners, ids, markers, markerIds]) m.delete();
  });
});
