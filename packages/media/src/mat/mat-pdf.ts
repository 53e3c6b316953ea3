import { boardRects, BOARD_ORIGIN_MM, MAT_SQUARE_MM, MAT_SQUARES_Y, PAGE_MM, RULER_MM, rulerRects, type MatRect } from './board.js';

// The capture mat as a one-page vector PDF. The board is nothing but filled rectangles, so a few lines of
// PDF are exact to the micrometre at any printer resolution: the page is drawn in millimetres (one `cm`
// maps mm to points, y down) with one `re` per black shape. Deterministic bytes, so the ETag is stable.

const PT_PER_MM = 72 / 25.4;
export const MAT_CAPTION = `Plinth capture mat \u2014 print at 100% (no scaling); square = ${MAT_SQUARE_MM} mm`;

const num = (v: number) => String(Math.round(v * 10000) / 10000);

/** A PDF string literal in WinAnsiEncoding (the em dash is byte 0x97). */
function pdfString(text: string): string {
  let out = '(';
  for (const ch of text) {
    if (ch === '\u2014') out += '\\227';
    else if (ch === '(' || ch === ')' || ch === '\\') out += `\\${ch}`;
    else out += ch;
  }
  return `${out})`;
}

function textAt(xMm: number, yMm: number, size: number, text: string): string {
  return `BT /F1 ${size} Tf 1 0 0 1 ${num(xMm * PT_PER_MM)} ${num((PAGE_MM.height - yMm) * PT_PER_MM)} Tm ${pdfString(text)} Tj ET`;
}

function pageContent(rects: readonly MatRect[]): string {
  const boardBottom = BOARD_ORIGIN_MM.y + MAT_SQUARES_Y * MAT_SQUARE_MM;
  const ruler = rulerRects();
  const rulerY = ruler[0].y;
  return [
    'q',
    `${PT_PER_MM.toFixed(9)} 0 0 ${(-PT_PER_MM).toFixed(9)} 0 ${(PAGE_MM.height * PT_PER_MM).toFixed(9)} cm`,
    '0 g',
    ...[...rects, ...ruler].map((r) => `${num(r.x)} ${num(r.y)} ${num(r.w)} ${num(r.h)} re`),
    'f',
    'Q',
    '0 g',
    textAt(BOARD_ORIGIN_MM.x, boardBottom + 8, 11, MAT_CAPTION),
    textAt(BOARD_ORIGIN_MM.x, rulerY + 5, 8, '0'),
    textAt(BOARD_ORIGIN_MM.x + RULER_MM - 2, rulerY + 5, 8, `${RULER_MM}`),
    textAt(BOARD_ORIGIN_MM.x + RULER_MM + 4, rulerY + 1, 8, `check: this bar must measure ${RULER_MM} mm`),
    '',
  ].join('\n');
}

/** The capture mat, A4 portrait, as PDF bytes. */
export function captureMatPdf(): Buffer {
  const content = pageContent(boardRects());
  const pageSize = `0 0 ${num(PAGE_MM.width * PT_PER_MM)} ${num(PAGE_MM.height * PT_PER_MM)}`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [${pageSize}] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>`,
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}endstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
