import sharp from 'sharp';
import { cameraCentre, projectPoint, type PosedCamera } from '../poses/camera.js';
import { normalize } from '../poses/linear-algebra.js';
import type { TriangleMesh } from './marching-cubes.js';
import type { PreparedView } from './prepared-view.js';
import { DECODE_CONCURRENCY, mapLimit } from '../util/map-limit.js';
import { bleedColours } from './texture-bleed.js';
import { levelSeams, type SeamMesh } from './texture-seams.js';
import { triangleNormal } from './triangle-normal.js';
import { rasterDepth, type DepthRange } from './stereo/hull-depth.js';

// Texturing by projection: every triangle takes its colour from the view that faces it
// most squarely (largest normal · direction to camera) among the views that really see it
// (nothing of the model in front of it: tested against the model's depth in that view,
// which matters once stereo has opened concavities), and its UVs are simply its
// projection into that photo. The atlas is therefore a mosaic of photo crops, one tile
// per view that won any triangle, so the texture is the photographs themselves rather
// than a resampled unwrap. Vertices on the border between two views' triangles are
// split, which also gives crisp normals where the views meet (usually real edges). Where two views meet,
// their colours are levelled (texture-seams.ts) so the border does not show as an edge.

/** The mesh with a normal and a texture coordinate per vertex. */
export type TexturedMesh = TriangleMesh & { normals: Float32Array; uvs: Float32Array };

/** Texels left empty around each tile so filtering never reaches the neighbour. */
const GUTTER = 2;
/** Photo context kept around the product box, as a share of its longer side. */
const CROP_PAD = 0.03;
/** Pixels of product colour grown over the backdrop inside each tile. */
const BLEED_PASSES = 16;
/** Weight of the triangle's side of the axis when choosing its view; see textureHull. */
const RADIAL_PULL = 0.2;
const JPEG_QUALITY = 88;
/** Longest side of the depth images the occlusion test draws the model into. */
const OCCLUSION_SIDE = 320;
/** A triangle is hidden in a view when the model lies in front of it by more than this share of its depth. */
const OCCLUSION_TOLERANCE = 0.01;
/** Exposure gains between photos are kept within these bounds. */
const GAIN_RANGE = [0.75, 1.33] as const;

interface Tile {
  view: number;
  /** Crop of the photo, image pixels. */
  crop: { left: number; top: number; width: number; height: number };
  /** Placement in the atlas, texels. */
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface TextureOptions {
  /** Level colours across the borders between photos (on unless a test compares without). */
  levelSeams?: boolean;
}

/** `cams[k]` is the camera of `views[k]`, in the mesh's frame (the product near the origin). */
export async function textureHull(
  mesh: TriangleMesh,
  views: readonly PreparedView[],
  cams: readonly PosedCamera[],
  textureSize: number,
  options: TextureOptions = {},
): Promise<{ mesh: TexturedMesh; texture: Buffer }> {
  const { positions, indices } = mesh;
  const triangleCount = indices.length / 3;
  const viewCount = cams.length;
  // Direction from the product towards each camera.
  const toCamera = cams.map((cam) => normalize(cameraCentre(cam)));

  const depths = cams.map((cam) => {
    const scale = Math.min(1, OCCLUSION_SIDE / Math.max(cam.width, cam.height));
    return rasterDepth(mesh, cam, Math.max(1, Math.round(cam.width * scale)), Math.max(1, Math.round(cam.height * scale)));
  });
  const faceNormals = new Float64Array(triangleCount * 3);
  const chart = new Int32Array(triangleCount);
  const seen = new Uint8Array(triangleCount);
  for (let t = 0; t < triangleCount; t++) {
    const [a, b, c] = [indices[t * 3], indices[t * 3 + 1], indices[t * 3 + 2]];
    const [nx, ny, nz] = faceNormal(positions, a, b, c);
    faceNormals.set([nx, ny, nz], t * 3);
    // Tops and bottoms face no level camera, and their noisy normals would pick views
    // at random: a speckled lid. A small pull towards the camera on the triangle's own
    // side of the axis makes such faces take the nearest side's colour instead.
    const rx = positions[a * 3] + positions[b * 3] + positions[c * 3];
    const rz = positions[a * 3 + 2] + positions[b * 3 + 2] + positions[c * 3 + 2];
    const radial = Math.hypot(rx, rz) || 1;
    // The best view that sees the triangle; the best of all when none does (a sliver every view misses).
    let [best, bestScore, bestSeen, bestSeenScore] = [0, -Infinity, -1, -Infinity];
    const centroid = [0, 1, 2].map((k) => (positions[a * 3 + k] + positions[b * 3 + k] + positions[c * 3 + k]) / 3);
    for (let k = 0; k < viewCount; k++) {
      const d = toCamera[k];
      const score = nx * d[0] + ny * d[1] + nz * d[2] + (RADIAL_PULL * (rx * d[0] + rz * d[2])) / radial;
      if (score > bestScore) {
        bestScore = score;
        best = k;
      }
      if (score > bestSeenScore && score > 0 && sees(depths[k], cams[k], centroid)) {
        bestSeenScore = score;
        bestSeen = k;
      }
    }
    chart[t] = bestSeen >= 0 ? bestSeen : best;
    seen[t] = bestSeen >= 0 ? 1 : 0;
  }

  // One output vertex per (input vertex, chart) pair in use.
  const slot = new Int32Array((positions.length / 3) * viewCount).fill(-1);
  const source: number[] = [];
  const sourceChart: number[] = [];
  const outIndices = new Uint32Array(indices.length);
  for (let i = 0; i < indices.length; i++) {
    const key = indices[i] * viewCount + chart[Math.floor(i / 3)];
    if (slot[key] < 0) {
      slot[key] = source.length;
      source.push(indices[i]);
      sourceChart.push(chart[Math.floor(i / 3)]);
    }
    outIndices[i] = slot[key];
  }
  const vertexCount = source.length;
  const outPositions = new Float32Array(vertexCount * 3);
  for (let v = 0; v < vertexCount; v++) outPositions.set(positions.subarray(source[v] * 3, source[v] * 3 + 3), v * 3);
  const normals = vertexNormals(outIndices, faceNormals, vertexCount, (v) => toCamera[sourceChart[v]]);

  const used = [...new Set(sourceChart)].sort((a, b) => a - b);
  const tiles = layoutTiles(
    used.map((k) => ({ view: k, crop: cropFor(views[k]) })),
    textureSize,
  );
  const tileOf = new Map(tiles.map((tile) => [tile.view, tile]));
  const uvs = new Float32Array(vertexCount * 2);
  for (let v = 0; v < vertexCount; v++) {
    const tile = tileOf.get(sourceChart[v])!;
    const [px, py] = projectPoint(cams[tile.view], outPositions[v * 3], outPositions[v * 3 + 1], outPositions[v * 3 + 2]);
    const tx = tile.left + ((px - tile.crop.left) * tile.width) / tile.crop.width;
    const ty = tile.top + ((py - tile.crop.top) * tile.height) / tile.crop.height;
    // The hull lies inside every silhouette, so clamping only trims sub-voxel overshoot.
    uvs[v * 2] = clamp(tx, tile.left, tile.left + tile.width) / textureSize;
    uvs[v * 2 + 1] = clamp(ty, tile.top, tile.top + tile.height) / textureSize;
  }

  const tileIndex = new Map(tiles.map((tile, i) => [tile.view, i]));
  // A vertex's colour is worth matching only where its photo really sees it: a triangle no photo sees (the
  // underside) is coloured from whatever lies in front of it, and levelling towards that would spread it.
  const trusted = new Uint8Array(vertexCount);
  for (let i = 0; i < outIndices.length; i++) if (seen[Math.floor(i / 3)]) trusted[outIndices[i]] = 1;
  const seams: SeamMesh | null =
    options.levelSeams === false
      ? null
      : { positions: outPositions, indices: outIndices, uvs, source, tile: sourceChart.map((k) => tileIndex.get(k)!), trusted };
  const texture = await composeAtlas(tiles, views, textureSize, seams);
  return { mesh: { positions: outPositions, normals, uvs, indices: outIndices }, texture };
}

const clamp = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);

/** Whether the point is in the view's frame with nothing of the model in front of it (the nearest of 2×2 depth pixels). */
function sees(depth: DepthRange, cam: PosedCamera, p: readonly number[]): boolean {
  const [px, py, z] = projectPoint(cam, p[0], p[1], p[2]);
  if (!(z > 0)) return false;
  const x = (px * depth.width) / cam.width - 0.5;
  const y = (py * depth.height) / cam.height - 0.5;
  if (x < 0 || y < 0 || x >= depth.width - 1 || y >= depth.height - 1) return false;
  const i = Math.floor(y) * depth.width + Math.floor(x);
  const front = Math.max(depth.near[i], depth.near[i + 1], depth.near[i + depth.width], depth.near[i + depth.width + 1]);
  return !(z > front * (1 + OCCLUSION_TOLERANCE));
}

/** The triangle's unit normal; zero for degenerate triangles. */
function faceNormal(p: Float32Array, a: number, b: number, c: number): [number, number, number] {
  const [nx, ny, nz] = triangleNormal(p, a, b, c);
  const len = Math.hypot(nx, ny, nz);
  return len > 0 ? [nx / len, ny / len, nz / len] : [0, 0, 0];
}

/** Smooth normals: the mean of the adjacent faces' unit normals (one view's faces, as vertices are split per view). */
function vertexNormals(
  indices: Uint32Array,
  faceNormals: Float64Array,
  vertexCount: number,
  fallback: (v: number) => readonly number[],
): Float32Array {
  const sum = new Float64Array(vertexCount * 3);
  for (let i = 0; i < indices.length; i++) {
    const t = Math.floor(i / 3) * 3;
    const v = indices[i] * 3;
    sum[v] += faceNormals[t];
    sum[v + 1] += faceNormals[t + 1];
    sum[v + 2] += faceNormals[t + 2];
  }
  const out = new Float32Array(vertexCount * 3);
  for (let v = 0; v < vertexCount; v++) {
    let [x, y, z] = [sum[v * 3], sum[v * 3 + 1], sum[v * 3 + 2]];
    let len = Math.hypot(x, y, z);
    // The validator rejects non-unit normals; a vertex whose faces cancel out faces its camera.
    if (!(len > 1e-9)) [x, y, z, len] = [...fallback(v), 1] as [number, number, number, number];
    out[v * 3] = x / len;
    out[v * 3 + 1] = y / len;
    out[v * 3 + 2] = z / len;
  }
  return out;
}

function cropFor(view: PreparedView): Tile['crop'] {
  const { x0, y0, x1, y1 } = view.bbox;
  const pad = CROP_PAD * Math.max(x1 - x0, y1 - y0) + 2;
  const left = Math.max(0, Math.floor(x0 - pad));
  const top = Math.max(0, Math.floor(y0 - pad));
  const right = Math.min(view.imageWidth, Math.ceil(x1 + pad));
  const bottom = Math.min(view.imageHeight, Math.ceil(y1 + pad));
  return { left, top, width: right - left, height: bottom - top };
}

/**
 * Equal cells in a grid, each crop fitted into its cell keeping its aspect; the grid
 * shape is the one that gives the smallest tile the most texels.
 */
function layoutTiles(items: { view: number; crop: Tile['crop'] }[], size: number): Tile[] {
  let best: Tile[] = [];
  let bestScore = -1;
  for (let cols = 1; cols <= items.length; cols++) {
    const rows = Math.ceil(items.length / cols);
    const cellW = Math.floor(size / cols);
    const cellH = Math.floor(size / rows);
    if (cellW <= 2 * GUTTER + 1 || cellH <= 2 * GUTTER + 1) continue;
    const tiles = items.map(({ view, crop }, i) => {
      const scale = Math.min((cellW - 2 * GUTTER) / crop.width, (cellH - 2 * GUTTER) / crop.height);
      const width = Math.max(1, Math.floor(crop.width * scale));
      const height = Math.max(1, Math.floor(crop.height * scale));
      const left = (i % cols) * cellW + Math.floor((cellW - width) / 2);
      const top = Math.floor(i / cols) * cellH + Math.floor((cellH - height) / 2);
      return { view, crop, left, top, width, height };
    });
    const score = Math.min(...tiles.map((t) => t.width * t.height));
    if (score > bestScore) {
      bestScore = score;
      best = tiles;
    }
  }
  return best;
}

async function composeAtlas(tiles: readonly Tile[], views: readonly PreparedView[], size: number, seams: SeamMesh | null): Promise<Buffer> {
  const decoded = await mapLimit(tiles, DECODE_CONCURRENCY, async (tile) => {
    const view = views[tile.view];
    const [rgb, coverage] = await Promise.all([
      sharp(view.image, { autoOrient: true })
        .extract(tile.crop)
        .resize(tile.width, tile.height, { fit: 'fill' })
        .flatten({ background: '#808080' })
        .toColourspace('srgb')
        .raw()
        .toBuffer(),
      sharp(view.mask, { raw: { width: view.maskWidth, height: view.maskHeight, channels: 1 } })
        .extract(maskCrop(view, tile.crop))
        .resize(tile.width, tile.height, { fit: 'fill' })
        // Single-channel raw input comes back as sRGB unless told otherwise.
        .toColourspace('b-w')
        .raw()
        .toBuffer(),
    ]);
    return { rgb, coverage, tile };
  });
  // Exposure balanced between photos: each tile's product scaled to the median brightness of all of them.
  const means = decoded.map(({ rgb, coverage }) => productBrightness(rgb, coverage));
  const lit = means.filter((m) => m > 0).sort((p, q) => p - q);
  const target = lit[Math.floor(lit.length / 2)] ?? 0;
  decoded.forEach(({ rgb }, k) => {
    const gain = means[k] > 0 && target > 0 ? clamp(target / means[k], GAIN_RANGE[0], GAIN_RANGE[1]) : 1;
    if (Math.abs(gain - 1) > 0.01) for (let i = 0; i < rgb.length; i++) rgb[i] = Math.min(255, Math.round(rgb[i] * gain));
  });
  // Levelled after the gains (which take out most of the exposure difference) and before the bleed, so the
  // colours grown over the backdrop are the levelled ones.
  if (seams) levelSeams(seams, decoded.map(({ rgb, coverage, tile }) => ({ ...tile, rgb, coverage })), size);
  const pieces = decoded.map(({ rgb, coverage, tile }) => {
    bleedColours(rgb, coverage, tile.width, tile.height, BLEED_PASSES);
    return { input: rgb, raw: { width: tile.width, height: tile.height, channels: 3 as const }, left: tile.left, top: tile.top };
  });
  return sharp({ create: { width: size, height: size, channels: 3, background: '#808080' } })
    .composite(pieces)
    .jpeg({ quality: JPEG_QUALITY })
    .toBuffer();
}

function maskCrop(view: PreparedView, crop: Tile['crop']): Tile['crop'] {
  const left = Math.min(view.maskWidth - 1, Math.floor(crop.left * view.maskScaleX));
  const top = Math.min(view.maskHeight - 1, Math.floor(crop.top * view.maskScaleY));
  return {
    left,
    top,
    width: Math.max(1, Math.min(view.maskWidth - left, Math.round(crop.width * view.maskScaleX))),
    height: Math.max(1, Math.min(view.maskHeight - top, Math.round(crop.height * view.maskScaleY))),
  };
}

/** Mean grey level of the product's pixels in a tile (0 when it has none). */
function productBrightness(rgb: Buffer, coverage: Buffer): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < coverage.length; i++) {
    if (coverage[i] < 128) continue;
    sum += (rgb[i * 3] + rgb[i * 3 + 1] + rgb[i * 3 + 2]) / 3;
    count++;
  }
  return count ? sum / count : 0;
}
