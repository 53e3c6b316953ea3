import sharp from 'sharp';
import { MASK_THRESHOLD, type PreparedView } from '../generate/prepared-view.js';
import type { PosedCamera } from '../poses/camera.js';
import { opencv, type Cv } from '../segment/opencv.js';
import { BOARD_ORIGIN_MM, boardRects, MAT_SQUARE_MM, MAT_SQUARES_X, MAT_SQUARES_Y, PAGE_MM, rulerRects } from './board.js';

// The cut-out on the capture mat. A segmenter sees a product standing on a black-and-white page and often
// keeps the page too (it is the most salient thing in the photo). Once the mat has posed a photo, what the
// page shows at every pixel is known exactly: a pixel on the page whose brightness agrees with the print
// there is the page, whatever the segmenter said; a pixel that disagrees is something standing in front of
// it. Off the page the segmenter's answer stands. Only the print's black shapes are known (the caption's
// text is not drawn here): a few caption pixels stay "product" and are dropped as specks.

/** Page raster resolution, pixels per millimetre. */
const RASTER_PER_MM = 4;
/** Brightness (0 = the print's black, 1 = its paper) this far past what the print allows still agrees. */
const TOLERANCE = 0.2;
/** Level tiles, mask pixels: lighting changes across the page, not within a tile. */
const TILE = 64;
/** A tile needs this many sure paper (or ink) pixels for its own level; fewer takes the whole photo's. */
const MIN_TILE_SAMPLES = 40;
/** Gaps in the product's mask up to this wide (metres on the mat) are closed: a few of the markers' cells. */
const GAP_M = 0.012;
/** A tile whose ink-to-paper contrast is under this share of the photo's is read with the photo's levels. */
const MIN_TILE_CONTRAST = 0.6;
/** Pieces smaller than this share of the largest are specks (caption text, a misread edge). */
const MIN_PIECE_SHARE = 0.02;

let raster: Uint8Array | null = null;
const RW = Math.round(PAGE_MM.width * RASTER_PER_MM);
const RH = Math.round(PAGE_MM.height * RASTER_PER_MM);

/** The printed page, 1 where the print is black. */
function pageRaster(): Uint8Array {
  if (raster) return raster;
  raster = new Uint8Array(RW * RH);
  for (const r of [...boardRects(), ...rulerRects()]) {
    const [x0, x1] = [Math.round(r.x * RASTER_PER_MM), Math.round((r.x + r.w) * RASTER_PER_MM)];
    const [y0, y1] = [Math.round(r.y * RASTER_PER_MM), Math.round((r.y + r.h) * RASTER_PER_MM)];
    for (let y = y0; y < y1; y++) raster.fill(1, y * RW + x0, y * RW + x1);
  }
  return raster;
}

/** The print at page millimetres: 0 black, 1 paper, -1 off the page. */
function printAt(mmX: number, mmY: number): number {
  const x = Math.floor(mmX * RASTER_PER_MM);
  const y = Math.floor(mmY * RASTER_PER_MM);
  if (x < 0 || y < 0 || x >= RW || y >= RH) return -1;
  return 1 - pageRaster()[y * RW + x];
}

/** The mat's centre on the page, mm: the mat frame's origin. */
const CENTRE_MM = { x: BOARD_ORIGIN_MM.x + (MAT_SQUARES_X * MAT_SQUARE_MM) / 2, y: BOARD_ORIGIN_MM.y + (MAT_SQUARES_Y * MAT_SQUARE_MM) / 2 };

/** Where an image point's ray meets the mat, as page millimetres; null above the horizon. */
function onPage(cam: PosedCamera, u: number, v: number): [number, number] | null {
  const r = cam.rotation;
  const t = cam.translation;
  const d = [(u - cam.cx) / cam.fx, (v - cam.cy) / cam.fy, 1];
  // World direction Rᵀd and camera centre −Rᵀt.
  const dy = r[1] * d[0] + r[4] * d[1] + r[7] * d[2];
  const cy = -(r[1] * t[0] + r[4] * t[1] + r[7] * t[2]);
  const s = -cy / dy;
  if (!(s > 0)) return null;
  const dx = r[0] * d[0] + r[3] * d[1] + r[6] * d[2];
  const dz = r[2] * d[0] + r[5] * d[1] + r[8] * d[2];
  const cx = -(r[0] * t[0] + r[3] * t[1] + r[6] * t[2]);
  const cz = -(r[2] * t[0] + r[5] * t[1] + r[8] * t[2]);
  // The mat's z runs down the page.
  return [(cx + s * dx) * 1000 + CENTRE_MM.x, (cz + s * dz) * 1000 + CENTRE_MM.y];
}

interface Expected {
  /** Per mask pixel: the least and most brightness the print allows there (NaN off the page). */
  lo: Float32Array;
  hi: Float32Array;
}

/** What the print allows at each mask pixel, widened by a pixel's footprint and a little pose error. */
function expectedPrint(view: PreparedView, cam: PosedCamera): Expected {
  const { maskWidth: w, maskHeight: h, maskScaleX: sx, maskScaleY: sy } = view;
  const lo = new Float32Array(w * h).fill(NaN);
  const hi = new Float32Array(w * h).fill(NaN);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = onPage(cam, (x + 0.5) / sx, (y + 0.5) / sy);
      if (!p || printAt(p[0], p[1]) < 0) continue;
      const px = onPage(cam, (x + 1.5) / sx, (y + 0.5) / sy);
      const py = onPage(cam, (x + 0.5) / sx, (y + 1.5) / sy);
      if (!px || !py) continue;
      // A pixel and a half of footprint (blur, anti-aliasing, the pose's error) plus half a millimetre.
      const reach = 1.5 * Math.max(Math.hypot(px[0] - p[0], px[1] - p[1]), Math.hypot(py[0] - p[0], py[1] - p[1])) + 0.5;
      let min = 1;
      let max = 0;
      for (const [ox, oy] of [[0, 0], [-1, 0], [1, 0], [0, -1], [0, 1], [-1, -1], [1, 1], [-1, 1], [1, -1]]) {
        const e = printAt(p[0] + ox * reach, p[1] + oy * reach);
        // The page's own edge: the table beyond it may look like anything.
        min = Math.min(min, e < 0 ? 0 : e);
        max = Math.max(max, e < 0 ? 1 : e);
      }
      lo[y * w + x] = min;
      hi[y * w + x] = max;
    }
  }
  return { lo, hi };
}

const [AGREES, DISAGREES] = [1, 2];
/** GrabCut's labels. */
const GC = { bgd: 0, fgd: 1, prBgd: 2, prFgd: 3 } as const;
/** GrabCut works on copies at most this side; its answer is scaled back to the mask. */
const GRABCUT_SIDE = 640;

/**
 * The segmenter's mask decided again by GrabCut with what the mat tells for sure: the print where it shows
 * is backdrop, what hides a sure part of it is product; off the page the segmenter's answer is the guess.
 * A segmenter that took the page for the product also misjudged the rest of the photo (the product's
 * parts seen against the table); GrabCut's colour models, now learnt from the right pixels, put them back.
 * The result is 1 where product.
 */
async function reseeded(view: PreparedView, print: Uint8Array, ex: Expected): Promise<Uint8Array> {
  const { maskWidth: w, maskHeight: h } = view;
  const scale = Math.min(1, GRABCUT_SIDE / Math.max(w, h));
  const [gw, gh] = [Math.max(1, Math.round(w * scale)), Math.max(1, Math.round(h * scale))];
  const rgb = await sharp(view.image).rotate().resize(gw, gh, { fit: 'fill' }).removeAlpha().raw().toBuffer();
  const seeds = new Uint8Array(gw * gh);
  let sure = 0;
  for (let y = 0; y < gh; y++) {
    for (let x = 0; x < gw; x++) {
      const i = Math.min(h - 1, Math.floor((y + 0.5) / scale)) * w + Math.min(w - 1, Math.floor((x + 0.5) / scale));
      const definite = ex.lo[i] === ex.hi[i];
      const guess = view.mask[i] >= MASK_THRESHOLD ? GC.prFgd : GC.prBgd;
      const label = print[i] === AGREES ? GC.bgd : print[i] === DISAGREES && definite ? GC.fgd : print[i] === DISAGREES ? GC.prFgd : guess;
      if (label === GC.fgd) sure++;
      seeds[y * gw + x] = label;
    }
  }
  const fromSegmenter = () => Uint8Array.from(view.mask, (v) => (v >= MASK_THRESHOLD ? 1 : 0));
  if (sure === 0) return fromSegmenter();
  const { cv } = (await opencv()) as { cv: Cv & Record<string, any> };
  const img = cv.matFromArray(gh, gw, cv.CV_8UC3, rgb);
  const mask = cv.matFromArray(gh, gw, cv.CV_8UC1, seeds);
  const bgd = new cv.Mat();
  const fgd = new cv.Mat();
  try {
    cv.grabCut(img, mask, new cv.Rect(0, 0, gw, gh), bgd, fgd, 3, cv.GC_INIT_WITH_MASK);
    const labels = mask.data as Uint8Array;
    const out = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) {
      const gy = Math.min(gh - 1, Math.floor((y + 0.5) * scale));
      for (let x = 0; x < w; x++) {
        const l = labels[gy * gw + Math.min(gw - 1, Math.floor((x + 0.5) * scale))];
        out[y * w + x] = l === GC.fgd || l === GC.prFgd ? 1 : 0;
      }
    }
    return out;
  } catch {
    return fromSegmenter();
  } finally {
    for (const m of [img, mask, bgd, fgd]) m.delete();
  }
}

/** The photo's luma at the mask's size. */
async function lumaAtMaskSize(view: PreparedView): Promise<Uint8Array> {
  const data = await sharp(view.image).rotate().resize(view.maskWidth, view.maskHeight, { fit: 'fill' }).greyscale().raw().toBuffer();
  return new Uint8Array(data.buffer, data.byteOffset, view.maskWidth * view.maskHeight);
}

/** A percentile of a 256-bin histogram. */
function percentile(hist: Uint32Array, count: number, q: number): number {
  let seen = 0;
  for (let v = 0; v < 256; v++) {
    seen += hist[v];
    if (seen >= q * count) return v;
  }
  return 255;
}

/**
 * Ink and paper levels per tile: the darkest tenth of sure-ink pixels and the brightest tenth of sure-paper
 * ones, so a product covering part of a tile does not pull the levels towards itself.
 */
function levels(luma: Uint8Array, ex: Expected, w: number, h: number): (x: number, y: number) => [number, number] {
  const tx = Math.ceil(w / TILE);
  const ty = Math.ceil(h / TILE);
  const ink = Array.from({ length: tx * ty + 1 }, () => ({ hist: new Uint32Array(256), n: 0 }));
  const paper = Array.from({ length: tx * ty + 1 }, () => ({ hist: new Uint32Array(256), n: 0 }));
  const all = tx * ty;
  for (let i = 0; i < w * h; i++) {
    const sure = ex.lo[i] === ex.hi[i] ? (ex.lo[i] === 0 ? ink : ex.lo[i] === 1 ? paper : null) : null;
    if (!sure) continue;
    const tile = Math.floor((i % w) / TILE) + Math.floor(i / w / TILE) * tx;
    for (const k of [tile, all]) {
      sure[k].hist[luma[i]]++;
      sure[k].n++;
    }
  }
  const level = (bins: typeof ink, k: number, q: number) => percentile(bins[k].hist, bins[k].n, q);
  const whole: [number, number] = [level(ink, all, 0.1), level(paper, all, 0.9)];
  const table = Array.from({ length: all }, (_, k): [number, number] => {
    if (ink[k].n < MIN_TILE_SAMPLES || paper[k].n < MIN_TILE_SAMPLES) return whole;
    const own: [number, number] = [level(ink, k, 0.1), level(paper, k, 0.9)];
    // A tile the product covers measures the product, not the print: its contrast collapses.
    return own[1] - own[0] >= MIN_TILE_CONTRAST * (whole[1] - whole[0]) ? own : whole;
  });
  return (x, y) => table[Math.floor(x / TILE) + Math.floor(y / TILE) * tx];
}

function onEdge(i: number, w: number, h: number): boolean {
  return i < w || i >= w * (h - 1) || i % w === 0 || i % w === w - 1;
}

/** The 4-connected pieces of the pixels where `inside` holds. */
function pieces(inside: (i: number) => boolean, w: number, h: number): number[][] {
  const seen = new Uint8Array(w * h);
  const out: number[][] = [];
  for (let start = 0; start < w * h; start++) {
    if (seen[start] || !inside(start)) continue;
    const piece: number[] = [];
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const i = stack.pop()!;
      piece.push(i);
      const x = i % w;
      for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i >= w ? i - w : -1, i + w < w * h ? i + w : -1]) {
        if (j >= 0 && !seen[j] && inside(j)) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
    out.push(piece);
  }
  return out;
}

/**
 * Drops the specks of a 0/255 mask (pieces under MIN_PIECE_SHARE of the largest) and fills its enclosed
 * holes where no ink showed: paper seen through a hole is indistinguishable from a white product, ink is not.
 */
function tidy(mask: Uint8Array, inkSeen: Uint8Array, w: number, h: number): void {
  const parts = pieces((i) => mask[i] > 0, w, h);
  const largest = Math.max(0, ...parts.map((p) => p.length));
  for (const p of parts) if (p.length < MIN_PIECE_SHARE * largest) for (const i of p) mask[i] = 0;
  for (const hole of pieces((i) => mask[i] === 0, w, h)) {
    const open = hole.some((i) => inkSeen[i] || onEdge(i, w, h));
    if (!open) for (const i of hole) mask[i] = 255;
  }
}

/** Where the 0/255 mask has any (grow) or only (shrink) set pixels within `r` along one axis. */
function sweep(src: Uint8Array, w: number, h: number, r: number, alongX: boolean, grow: boolean): Uint8Array {
  const out = new Uint8Array(w * h);
  const [lines, len] = alongX ? [h, w] : [w, h];
  const at = (line: number, k: number) => (alongX ? line * w + k : k * w + line);
  const prefix = new Int32Array(len + 1);
  for (let line = 0; line < lines; line++) {
    for (let k = 0; k < len; k++) prefix[k + 1] = prefix[k] + (src[at(line, k)] ? 1 : 0);
    for (let k = 0; k < len; k++) {
      const [a, b] = [Math.max(0, k - r), Math.min(len, k + r + 1)];
      const set = prefix[b] - prefix[a];
      // Off the image counts as set when shrinking: a mask cut off by the photo's edge stays cut off there.
      out[at(line, k)] = (grow ? set > 0 : set === b - a) ? 255 : 0;
    }
  }
  return out;
}

/** Square morphology of radius r: grow then shrink closes gaps narrower than 2r; shrink then grow opens. */
function morph(mask: Uint8Array, w: number, h: number, r: number, order: 'close' | 'open'): Uint8Array {
  const first = order === 'close';
  const a = sweep(sweep(mask, w, h, r, true, first), w, h, r, false, first);
  return sweep(sweep(a, w, h, r, true, !first), w, h, r, false, !first);
}

/**
 * The view's mask with the visible mat taken out: pixels on the page whose brightness agrees with the
 * print (ink or paper, after levelling by the page's own ink and paper nearby) are background; the rest of
 * the segmenter's mask stands. The box and fill are measured again; null when nothing is left.
 */
export async function maskWithoutMat(view: PreparedView, cam: PosedCamera): Promise<PreparedView | null> {
  const { maskWidth: w, maskHeight: h } = view;
  const ex = expectedPrint(view, cam);
  const luma = await lumaAtMaskSize(view);
  const levelAt = levels(luma, ex, w, h);
  // Per pixel: off the page, agrees with the print, or disagrees with it (something stands in front).
  const print = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (Number.isNaN(ex.lo[i])) continue;
      const [ink, paper] = levelAt(x, y);
      const b = (luma[i] - ink) / Math.max(1, paper - ink);
      print[i] = b >= ex.lo[i] - TOLERANCE && b <= ex.hi[i] + TOLERANCE ? AGREES : DISAGREES;
    }
  }
  const regrown = await reseeded(view, print, ex);
  // On the page the print decides; off it, the segmenter's product plus what GrabCut found with the mat's
  // seeds, except pieces reaching the photo's edge (a product on the mat is in frame; the sky and the wall are not).
  const cut = Uint8Array.from(view.mask, (v) => (v >= MASK_THRESHOLD ? 1 : 0));
  for (const added of pieces((i) => !cut[i] && print[i] === 0 && regrown[i] === 1, w, h)) {
    if (!added.some((i) => onEdge(i, w, h))) for (const i of added) cut[i] = 1;
  }
  const kept = new Uint8Array(w * h);
  const inkSeen = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) {
    if (!cut[i]) continue;
    if (print[i] === AGREES) inkSeen[i] = ex.hi[i] === 0 ? 1 : 0;
    else kept[i] = 255;
  }
  // A pixel of product over paper looks like paper: the paper's white cells and rings inside the product's
  // outline come back by closing gaps up to a few print cells wide (the outline of a convex product is
  // unchanged by closing); thin leftovers along the print's edges go first.
  // The mat's centre lies at depth translation[2] from the camera.
  const gap = Math.max(2, Math.round((cam.fx * view.maskScaleX * GAP_M) / 2 / Math.max(cam.translation[2], 1e-6)));
  const mask = morph(morph(kept, w, h, 1, 'open'), w, h, gap, 'close');
  tidy(mask, inkSeen, w, h);
  let [x0, y0, x1, y1, count] = [w, h, -1, -1, 0];
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    const x = i % w;
    const y = (i - x) / w;
    count++;
    [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
  }
  if (count === 0) return null;
  const { maskScaleX: sx, maskScaleY: sy } = view;
  return { ...view, mask, bbox: { x0: x0 / sx, y0: y0 / sy, x1: (x1 + 1) / sx, y1: (y1 + 1) / sy }, fill: count / ((x1 + 1 - x0) * (y1 + 1 - y0)) };
}

/** Every view the mat posed, with the mat taken out of its mask; views with nothing left are dropped. */
export async function masksWithoutMat(views: readonly PreparedView[], cameras: ReadonlyMap<number, PosedCamera>): Promise<PreparedView[]> {
  const out: PreparedView[] = [];
  for (const view of views) {
    const cam = cameras.get(view.index);
    const refined = cam ? await maskWithoutMat(view, cam) : view;
    if (refined) out.push(refined);
  }
  return out;
}
