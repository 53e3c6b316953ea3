import sharp from 'sharp';
import type { PosedCamera } from '../poses/camera.js';
import { DECODE_CONCURRENCY, mapLimit } from '../util/map-limit.js';
import { marchingCubes } from './marching-cubes.js';
import { carvePosedHull, posedSamplers, type Box3 } from './posed-carve.js';
import { rasterSilhouette } from './posed-gate.js';
import { MASK_THRESHOLD, type PreparedView } from './prepared-view.js';

// What a cut-out keeps that the photo sees through. A segmenter judges a photo alone, and the backdrop seen
// between a product's parts (between columns, through a chair's back, under a handle) often comes out as
// product, most of all where backdrop and shadow are both dark: the hull then keeps those gaps filled. Here a
// piece of the cut-out is given back to the backdrop when it has the colour of a plain dark backdrop, lies
// wholly inside the product's outline, and is large enough not to be a groove's shadow. A dark product on a
// dark backdrop looks just like that, so the pieces are only a proposal, taken for the whole capture or not at all:
//  - carving needs two photos to agree before it removes anything (posed-carve.ts), so a piece only one photo
//    proposes opens nothing;
//  - what the proposals open must not be seen as product by any photo: where the shape carved with them shows
//    a hole that the shape carved without them did not, every photo must see one of its backdrop's colours
//    there. A tunnel through a black panel shows, from behind the product, a hole over its painted back, and
//    the proposals are dropped.

/** A backdrop at least this plain (per channel, in grey levels of robust spread) is one colour. */
const MAX_BACKDROP_SPREAD = 10;
/** The brightest channel of a backdrop this dark or darker (0–255): where segmenters keep what they see through. */
const MAX_BACKDROP_LEVEL = 60;
/** Spreads under this are read as this: JPEG noise on a black cloth is not a zero spread. */
const MIN_BACKDROP_SPREAD = 2.5;
/** A pixel within this many spreads of the backdrop's colour in every channel has its colour. */
const BACKDROP_SPREADS = 3;
/** A colour bin holding this share of the backdrop's samples is one of its colours. */
const COMMON_BACKDROP_SHARE = 0.005;
/** The backdrop is sampled outside the outline, within this share of the product box's size around it. */
const BACKDROP_MARGIN = 0.15;
const MIN_BACKDROP_SAMPLES = 400;
/** A proposed piece is at least this share of the photo's product pixels (smaller: a groove or a shadow). */
const MIN_PIECE_SHARE = 0.003;
/** A photo whose proposals would take more than this share of its product is of a product like its backdrop. */
const MAX_PROPOSED_SHARE = 0.3;
/** The check's carving resolution and the side of its silhouettes. */
const CHECK_RESOLUTION = 80;
const CHECK_SIDE = 320;
/** Newly open silhouette pixels over product-coloured photo pixels, per photo, above which the proposals go. */
const MAX_CONTRADICTION_SHARE = 0.004;

export interface SeeThroughResult {
  /** The views with the accepted pieces cleared from their masks (the input views when nothing was accepted). */
  views: PreparedView[];
  /** Per view, 1 on the mask pixels given back to the backdrop; null where none were (or none accepted). */
  cleared: (Uint8Array | null)[];
  /** Share of all the photos' product pixels given back to the backdrop. */
  openedShare: number;
  /** Why the proposals were dropped, when they were. */
  refused: 'product_seen' | null;
}

/**
 * The see-through pieces of every view's cut-out, checked against every photo as above. `views` and `cams` are
 * the carving views; `box` holds the product (the coarse hull's box).
 */
export async function openSeenThrough(
  views: readonly PreparedView[],
  cams: readonly PosedCamera[],
  box: Box3,
  floorY?: number,
): Promise<SeeThroughResult> {
  // A few photos at a time: each decodes its photo at the mask's size (up to 1536 px, 5 MB of colours).
  const pieces = await mapLimit(views, DECODE_CONCURRENCY, (view) => proposedPieces(view));
  const proposed = pieces.reduce((n, p) => n + p.count, 0);
  const product = pieces.reduce((n, p) => n + p.product, 0);
  const unchanged = { views: [...views], cleared: views.map(() => null), openedShare: 0 };
  if (proposed === 0) return { ...unchanged, refused: null };
  const opened = views.map((view, k) => withCleared(view, pieces[k].cleared));
  const carve = async (vs: readonly PreparedView[]) => {
    const grid = await carvePosedHull(posedSamplers(vs, cams), box, { resolution: CHECK_RESOLUTION, floorY });
    return marchingCubes(grid);
  };
  const before = await carve(views);
  const after = await carve(opened);
  for (let k = 0; k < views.length; k++) {
    if (contradiction(views[k], pieces[k].like, cams[k], before, after) > MAX_CONTRADICTION_SHARE) {
      return { ...unchanged, refused: 'product_seen' };
    }
  }
  return { views: opened, cleared: pieces.map((p) => p.cleared), openedShare: proposed / Math.max(1, product), refused: null };
}

interface Pieces {
  /** 1 where the piece's pixels are given back to the backdrop, in mask pixels; null when none are. */
  cleared: Uint8Array | null;
  count: number;
  /** The view's product pixels. */
  product: number;
  /** 1 where a product pixel has a colour common in the backdrop around it; null when too little backdrop shows. */
  like: Uint8Array | null;
}

/** The photo's colours at the mask's size, three bytes a pixel. */
async function rgbAtMaskSize(view: PreparedView): Promise<Uint8Array> {
  const data = await sharp(view.image).rotate().resize(view.maskWidth, view.maskHeight, { fit: 'fill' }).removeAlpha().toColourspace('srgb').raw().toBuffer();
  return new Uint8Array(data.buffer, data.byteOffset, view.maskWidth * view.maskHeight * 3);
}

/** Non-product pixels that reach the photo's border: the backdrop around the product, not a hole inside it. */
const outsideRegion = (view: PreparedView) => reachedFromBorder((i) => view.mask[i] < MASK_THRESHOLD, view.maskWidth, view.maskHeight);

/** The pixels of a w×h image reached from its border through `open` ones (4-connected), as 1s. */
export function reachedFromBorder(open: (i: number) => boolean, w: number, h: number): Uint8Array {
  const reached = new Uint8Array(w * h);
  const stack: number[] = [];
  const push = (i: number) => {
    if (reached[i] || !open(i)) return;
    reached[i] = 1;
    stack.push(i);
  };
  for (let x = 0; x < w; x++) (push(x), push((h - 1) * w + x));
  for (let y = 0; y < h; y++) (push(y * w), push(y * w + w - 1));
  while (stack.length) {
    const i = stack.pop()!;
    const x = i % w;
    if (x > 0) push(i - 1);
    if (x < w - 1) push(i + 1);
    if (i >= w) push(i - w);
    if (i < w * (h - 1)) push(i + w);
  }
  return reached;
}

/** Median of a 256-bin histogram's values, and the median distance from it (robust centre and spread). */
function robustCentre(values: Uint8Array, count: number): { centre: number; spread: number } {
  const hist = new Uint32Array(256);
  for (let i = 0; i < count; i++) hist[values[i]]++;
  const at = (h: Uint32Array, q: number) => {
    let seen = 0;
    for (let v = 0; v < h.length; v++) if ((seen += h[v]) > q * count) return v;
    return h.length - 1;
  };
  const centre = at(hist, 0.5);
  const dist = new Uint32Array(256);
  for (let v = 0; v < 256; v++) dist[Math.abs(v - centre)] += hist[v];
  return { centre, spread: 1.4826 * at(dist, 0.5) };
}

async function proposedPieces(view: PreparedView): Promise<Pieces> {
  const { mask, maskWidth: w, maskHeight: h } = view;
  let product = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] >= MASK_THRESHOLD) product++;
  const none: Pieces = { cleared: null, count: 0, product, like: null };
  const outside = outsideRegion(view);
  // The backdrop's colour, from the outside just around the product box.
  const bx0 = view.bbox.x0 * view.maskScaleX;
  const bx1 = view.bbox.x1 * view.maskScaleX;
  const by0 = view.bbox.y0 * view.maskScaleY;
  const by1 = view.bbox.y1 * view.maskScaleY;
  const pad = BACKDROP_MARGIN * Math.max(bx1 - bx0, by1 - by0);
  const [x0, x1, y0, y1] = [Math.max(0, Math.floor(bx0 - pad)), Math.min(w, Math.ceil(bx1 + pad)), Math.max(0, Math.floor(by0 - pad)), Math.min(h, Math.ceil(by1 + pad))];
  const rgb = await rgbAtMaskSize(view);
  const channels = [new Uint8Array((x1 - x0) * (y1 - y0)), new Uint8Array((x1 - x0) * (y1 - y0)), new Uint8Array((x1 - x0) * (y1 - y0))];
  let samples = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = y * w + x;
      if (!outside[i]) continue;
      for (let c = 0; c < 3; c++) channels[c][samples] = rgb[i * 3 + c];
      samples++;
    }
  }
  if (samples < MIN_BACKDROP_SAMPLES) return none;
  // What the check reads: the product pixels whose colour is common in the backdrop (a cloth's folds and shadows
  // included), coarsely binned.
  const bin = (i: number) => ((rgb[i * 3] >> 5) << 6) | ((rgb[i * 3 + 1] >> 5) << 3) | (rgb[i * 3 + 2] >> 5);
  const hist = new Uint32Array(512);
  for (let k = 0; k < samples; k++) hist[((channels[0][k] >> 5) << 6) | ((channels[1][k] >> 5) << 3) | (channels[2][k] >> 5)]++;
  const common = Math.max(3, COMMON_BACKDROP_SHARE * samples);
  const like = new Uint8Array(w * h);
  for (let i = 0; i < like.length; i++) if (mask[i] >= MASK_THRESHOLD && hist[bin(i)] >= common) like[i] = 1;
  const seen = { ...none, like };
  // What is proposed: pixels of the backdrop's one colour. A textured or graded backdrop (a table, a room) has none.
  const backdrop = channels.map((values) => robustCentre(values, samples));
  if (backdrop.some((b) => b.spread > MAX_BACKDROP_SPREAD)) return seen;
  // Only a dark backdrop: a segmenter cuts a light one out of a product's gaps as a rule, and white labels and
  // panels on a white sweep are common enough that proposing them would only test the check.
  if (Math.max(...backdrop.map((b) => b.centre)) > MAX_BACKDROP_LEVEL) return seen;
  const reach = backdrop.map((b) => BACKDROP_SPREADS * Math.max(MIN_BACKDROP_SPREAD, b.spread));
  const plain = new Uint8Array(w * h);
  for (let i = 0; i < plain.length; i++) {
    if (mask[i] < MASK_THRESHOLD) continue;
    let match = 1;
    for (let c = 0; c < 3 && match; c++) if (Math.abs(rgb[i * 3 + c] - backdrop[c].centre) > reach[c]) match = 0;
    plain[i] = match;
  }
  // Pieces of backdrop colour that the outline closes in, large enough not to be a groove's shadow.
  const cleared = new Uint8Array(w * h);
  const visited = new Uint8Array(w * h);
  const minPiece = Math.max(16, MIN_PIECE_SHARE * product);
  let count = 0;
  const stack: number[] = [];
  for (let start = 0; start < plain.length; start++) {
    if (!plain[start] || visited[start]) continue;
    const piece: number[] = [];
    let touchesOutside = false;
    visited[start] = 1;
    stack.push(start);
    while (stack.length) {
      const i = stack.pop()!;
      piece.push(i);
      const x = i % w;
      for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i >= w ? i - w : -1, i < w * (h - 1) ? i + w : -1]) {
        if (j < 0) continue;
        if (outside[j]) touchesOutside = true;
        else if (plain[j] && !visited[j]) {
          visited[j] = 1;
          stack.push(j);
        }
      }
    }
    if (touchesOutside || piece.length < minPiece) continue;
    for (const i of piece) cleared[i] = 1;
    count += piece.length;
  }
  if (count === 0 || count > MAX_PROPOSED_SHARE * product) return seen;
  return { cleared, count, product, like };
}

/** The view with the `cleared` mask pixels given back to the backdrop. */
export function withCleared(view: PreparedView, cleared: Uint8Array | null): PreparedView {
  if (!cleared) return view;
  const mask = Uint8Array.from(view.mask);
  for (let i = 0; i < mask.length; i++) if (cleared[i]) mask[i] = 0;
  return { ...view, mask };
}

/**
 * The share of the view's product pixels where the proposals open a hole (the shape carved with them does not
 * cover a pixel the shape carved without them covered) over a colour the backdrop around it does not have: what
 * the view sees as product there, the proposals would carve away.
 */
function contradiction(view: PreparedView, like: Uint8Array | null, cam: PosedCamera, before: ReturnType<typeof marchingCubes>, after: ReturnType<typeof marchingCubes>): number {
  const scale = Math.min(1, CHECK_SIDE / Math.max(view.imageWidth, view.imageHeight));
  const w = Math.max(1, Math.round(view.imageWidth * scale));
  const h = Math.max(1, Math.round(view.imageHeight * scale));
  const was = rasterSilhouette(before, cam, w, h, scale);
  const is = rasterSilhouette(after, cam, w, h, scale);
  let product = 0;
  let against = 0;
  for (let y = 0; y < h; y++) {
    const my = Math.min(view.maskHeight - 1, Math.floor(((y + 0.5) / scale) * view.maskScaleY));
    for (let x = 0; x < w; x++) {
      const mx = Math.min(view.maskWidth - 1, Math.floor(((x + 0.5) / scale) * view.maskScaleX));
      const i = my * view.maskWidth + mx;
      if (view.mask[i] < MASK_THRESHOLD) continue;
      product++;
      if (was[y * w + x] && !is[y * w + x] && !like?.[i]) against++;
    }
  }
  return product === 0 ? 0 : against / product;
}
