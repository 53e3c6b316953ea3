import type { Primitive } from '@gltf-transform/core';
import sharp from 'sharp';

// Quick Look ignores primvars:displayColor on a mesh bound to a UsdPreviewSurface, and
// UsdPreviewSurface has no node that multiplies a primvar into a texture (see
// docs/decisions.md). So a primitive's COLOR_0 is baked into a small texture: each
// triangle owns a 2×2-pixel cell whose pixel centres hold its three corner colours and
// the affine fourth one. Bilinear filtering of an affine function sampled at pixel
// centres reproduces it exactly, so inside the triangle the texture shows the same
// linear blend a glTF viewer computes from the vertex colours (GPUs filter sRGB
// textures after decoding them to linear, and COLOR_0 is linear).

/** The faceVarying texcoord primvar the baked texture is read through. */
export const VERTEX_COLOR_PRIMVAR = 'vertexColorSt';
const CELL = 2;
/** Colours within half an 8-bit step of white are the "no tint" many exporters write. */
const WHITE = 1 - 0.5 / 255;

/** Linear RGB per vertex from COLOR_0, or null when there is none or it is white everywhere. */
export function readVertexColors(prim: Primitive): Float64Array | null {
  const accessor = prim.getAttribute('COLOR_0');
  if (!accessor) return null;
  const count = accessor.getCount();
  const out = new Float64Array(count * 3);
  const el: number[] = [];
  let tinted = false;
  for (let i = 0; i < count; i++) {
    // getElement denormalises UNSIGNED_BYTE/SHORT colours; alpha (VEC4) is not carried.
    accessor.getElement(i, el);
    for (let k = 0; k < 3; k++) {
      const v = Math.min(1, Math.max(0, el[k] ?? 1));
      out[i * 3 + k] = v;
      if (v < WHITE) tinted = true;
    }
  }
  return tinted ? out : null;
}

export interface VertexColorAtlas {
  /** Cells per row. */
  columns: number;
  width: number;
  height: number;
  png: Buffer;
}

const toSrgbByte = (linear: number) => {
  const c = Math.min(1, Math.max(0, linear));
  const s = c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055;
  return Math.round(s * 255);
};

/** One cell per triangle of `tris` (triangle-list indices into `colors`). */
export async function bakeVertexColors(colors: Float64Array, tris: Uint32Array): Promise<VertexColorAtlas> {
  const triangles = tris.length / 3;
  const columns = Math.max(1, Math.ceil(Math.sqrt(triangles)));
  const rows = Math.max(1, Math.ceil(triangles / columns));
  const width = columns * CELL;
  const height = rows * CELL;
  const raw = Buffer.alloc(width * height * 3, 255);
  const put = (x: number, y: number, rgb: number[]) => {
    const at = (y * width + x) * 3;
    for (let k = 0; k < 3; k++) raw[at + k] = toSrgbByte(rgb[k]);
  };
  for (let t = 0; t < triangles; t++) {
    const [c0, c1, c2] = [0, 1, 2].map((k) => Array.from(colors.subarray(tris[t * 3 + k] * 3, tris[t * 3 + k] * 3 + 3)));
    const x = (t % columns) * CELL;
    const y = Math.floor(t / columns) * CELL;
    put(x, y, c0);
    put(x + 1, y, c1);
    put(x, y + 1, c2);
    put(x + 1, y + 1, [0, 1, 2].map((k) => c1[k] + c2[k] - c0[k]));
  }
  const png = await sharp(raw, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 9 }).toBuffer();
  return { columns, width, height, png };
}

/**
 * faceVarying st for the atlas: per written corner, in the order the mesh writes its
 * triangles. `mirrored` says the writer swapped each triangle's last two corners.
 */
export function atlasTexCoords(atlas: Pick<VertexColorAtlas, 'columns' | 'width' | 'height'>, triangles: number, mirrored: boolean): Float64Array {
  const st = new Float64Array(triangles * 6);
  const corners = mirrored ? [[0, 0], [0, 1], [1, 0]] : [[0, 0], [1, 0], [0, 1]];
  for (let t = 0; t < triangles; t++) {
    const x = (t % atlas.columns) * CELL;
    const y = Math.floor(t / atlas.columns) * CELL;
    for (let k = 0; k < 3; k++) {
      const [dx, dy] = corners[k];
      // Pixel centres; USD's st origin is the image's bottom-left.
      st[t * 6 + k * 2] = (x + dx + 0.5) / atlas.width;
      st[t * 6 + k * 2 + 1] = 1 - (y + dy + 0.5) / atlas.height;
    }
  }
  return st;
}

const toLinear = (byte: number) => {
  const s = byte / 255;
  return s <= 0.04045 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
};

/**
 * The base colour texture with COLOR_0 multiplied in, in the texture's own UV space, for a
 * primitive whose material has both. Null when that space cannot hold one colour per texel:
 * UVs outside 0..1 (a tiled texture repeats texels across triangles of different colours).
 * Where UV islands overlap, the later triangle's tint wins.
 */
export async function bakeIntoTexture(image: Uint8Array, uv: Float64Array, colors: Float64Array, tris: Uint32Array): Promise<Buffer | null> {
  const EPS = 1e-4;
  for (const v of uv) if (!(v >= -EPS && v <= 1 + EPS)) return null;
  let decoded;
  try {
    decoded = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  } catch {
    return null;
  }
  const { data, info } = decoded;
  const { width, height } = info;
  const source = Buffer.from(data);
  // Two passes: first every triangle grown by a texel (bilinear samples at island edges reach
  // texels whose centres lie just outside), then the exact interiors, which win.
  for (const grow of [1, 0]) {
    for (let t = 0; t < tris.length; t += 3) {
      const corners = [0, 1, 2].map((k) => tris[t + k]);
      const px = corners.map((i) => uv[i * 2] * width - 0.5);
      const py = corners.map((i) => uv[i * 2 + 1] * height - 0.5);
      const area = (px[1] - px[0]) * (py[2] - py[0]) - (px[2] - px[0]) * (py[1] - py[0]);
      if (Math.abs(area) < 1e-12) continue;
      const x0 = Math.max(0, Math.floor(Math.min(...px)) - grow), x1 = Math.min(width - 1, Math.ceil(Math.max(...px)) + grow);
      const y0 = Math.max(0, Math.floor(Math.min(...py)) - grow), y1 = Math.min(height - 1, Math.ceil(Math.max(...py)) + grow);
      // Barycentric slack that amounts to `grow` texels at this triangle's size.
      const slack = grow ? Math.sqrt(2) / Math.sqrt(Math.abs(area)) : 1e-9;
      for (let y = y0; y <= y1; y++) {
        for (let x = x0; x <= x1; x++) {
          const b1 = ((x - px[0]) * (py[2] - py[0]) - (px[2] - px[0]) * (y - py[0])) / area;
          const b2 = ((px[1] - px[0]) * (y - py[0]) - (x - px[0]) * (py[1] - py[0])) / area;
          const b0 = 1 - b1 - b2;
          if (b0 < -slack || b1 < -slack || b2 < -slack) continue;
          const w = [b0, b1, b2].map((b) => Math.max(0, b));
          const sum = w[0] + w[1] + w[2];
          const at = (y * width + x) * 4;
          for (let k = 0; k < 3; k++) {
            const tint = (w[0] * colors[corners[0] * 3 + k] + w[1] * colors[corners[1] * 3 + k] + w[2] * colors[corners[2] * 3 + k]) / sum;
            data[at + k] = toSrgbByte(toLinear(source[at + k]) * tint);
          }
        }
      }
    }
  }
  return sharp(data, { raw: { width, height, channels: 4 } }).png({ compressionLevel: 9 }).toBuffer();
}
