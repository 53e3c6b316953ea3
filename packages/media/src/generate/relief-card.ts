import sharp from 'sharp';
import { DEFAULT_TALLEST_SIDE_METRES, type GenerateResult, type ResolvedHints } from './generator.js';
import { writePartsGlb, type MeshPart, type PartMaterial } from './glb-writer.js';
import type { PreparedView } from './prepared-view.js';
import { bleedColours } from './texture-bleed.js';

// With one or two views there is no depth to carve, so the product becomes a card of
// its real proportions standing upright on the floor, facing +z: the photo on the
// front, the second photo (or the first, seen through) on the back. That is the right
// model for flat goods (art, posters, rugs, signs) and a fair stand-in for anything else.

/** A view that fills this much of its box is a rectangle: solid box edges, no cut-out. */
const RECTANGULAR_FILL = 0.95;
const JPEG_QUALITY = 90;
const BLEED_PASSES = 6;

type V3 = [number, number, number];

/** `back`: a photo of the reverse side; without one the front shows through, mirrored. */
export async function buildReliefCard(front: PreparedView, back: PreparedView | null, hints: ResolvedHints): Promise<GenerateResult> {
  const views = back ? [front, back] : [front];
  const aspect = (front.bbox.x1 - front.bbox.x0) / (front.bbox.y1 - front.bbox.y0);
  const height = hints.heightMetres ?? (aspect > 1 ? DEFAULT_TALLEST_SIDE_METRES / aspect : DEFAULT_TALLEST_SIDE_METRES);
  const width = height * aspect;
  // Thick enough to read as an object in AR, thin enough not to change how it hangs.
  const thickness = Math.min(0.01, Math.max(0.002, 0.01 * Math.max(width, height)));
  const rectangular = views.every((v) => v.fill >= RECTANGULAR_FILL);

  // Tiles keep the card's aspect; a second view is squeezed to the same shape.
  const tileCount = back ? 2 : 1;
  const tileHeight = Math.max(1, Math.round(Math.min(hints.textureSize, hints.textureSize / (tileCount * aspect))));
  const tileWidth = Math.max(1, Math.round(tileHeight * aspect));
  const tiles = await Promise.all(views.map((v) => cutTile(v, tileWidth, tileHeight, rectangular)));
  const channels = rectangular ? 3 : 4;
  const atlas = sharp({
    create: { width: tileWidth * tileCount, height: tileHeight, channels, background: { r: 128, g: 128, b: 128, alpha: 0 } },
  }).composite(tiles.map((t, i) => ({ input: t.pixels, raw: { width: tileWidth, height: tileHeight, channels }, left: i * tileWidth, top: 0 })));
  const image = rectangular ? await atlas.jpeg({ quality: JPEG_QUALITY }).toBuffer() : await atlas.png({ compressionLevel: 9 }).toBuffer();

  const material: PartMaterial = {
    name: 'Photo',
    texture: { image, mimeType: rectangular ? 'image/jpeg' : 'image/png' },
    alphaMode: rectangular ? 'OPAQUE' : 'MASK',
  };
  const x0 = -width / 2;
  const x1 = width / 2;
  const zf = thickness / 2;
  const zb = -thickness / 2;
  const frontU = (x: number) => ((x - x0) / width) * (tileWidth / (tileWidth * tileCount));
  // Seen from behind, the back photo reads left to right along -x; without a back
  // photo the front one shows through, mirrored like a print held up to the light.
  const backU = back ? (x: number) => (tileWidth + ((x1 - x) / width) * tileWidth) / (tileWidth * tileCount) : frontU;
  const v = (y: number) => 1 - y / height;
  const photo = (corners: V3[], normal: V3, u: (x: number) => number) =>
    quad('Photo', corners, normal, material, corners.map(([x, y]) => [u(x), v(y)] as [number, number]));

  const parts: MeshPart[] = [
    photo([[x0, 0, zf], [x1, 0, zf], [x1, height, zf], [x0, height, zf]], [0, 0, 1], frontU),
    photo([[x1, 0, zb], [x0, 0, zb], [x0, height, zb], [x1, height, zb]], [0, 0, -1], backU),
  ];
  if (rectangular) {
    // Cut-out shapes have no straight edges to close, so only rectangles get sides.
    const edge: PartMaterial = { name: 'Edge', baseColor: [...tiles[0].meanLinear, 1] };
    parts.push(
      quad('Edge', [[x1, 0, zf], [x1, 0, zb], [x1, height, zb], [x1, height, zf]], [1, 0, 0], edge),
      quad('Edge', [[x0, 0, zb], [x0, 0, zf], [x0, height, zf], [x0, height, zb]], [-1, 0, 0], edge),
      quad('Edge', [[x0, height, zf], [x1, height, zf], [x1, height, zb], [x0, height, zb]], [0, 1, 0], edge),
      quad('Edge', [[x0, 0, zb], [x1, 0, zb], [x1, 0, zf], [x0, 0, zf]], [0, -1, 0], edge),
    );
  }
  const glb = await writePartsGlb('ReliefCard', mergeByMaterial(parts));
  return { glb, dimensions: { width, height, depth: thickness }, triangles: parts.length * 2, method: 'relief_card' };
}

/** The view's product box, resized to the tile; RGBA with the mask as alpha unless opaque. */
async function cutTile(view: PreparedView, width: number, height: number, opaque: boolean) {
  const crop = {
    left: Math.max(0, Math.floor(view.bbox.x0)),
    top: Math.max(0, Math.floor(view.bbox.y0)),
    width: 0,
    height: 0,
  };
  crop.width = Math.max(1, Math.min(view.imageWidth, Math.ceil(view.bbox.x1)) - crop.left);
  crop.height = Math.max(1, Math.min(view.imageHeight, Math.ceil(view.bbox.y1)) - crop.top);
  const maskLeft = Math.floor(crop.left * view.maskScaleX);
  const maskTop = Math.floor(crop.top * view.maskScaleY);
  const [rgb, alpha] = await Promise.all([
    sharp(view.image, { autoOrient: true }).extract(crop).resize(width, height, { fit: 'fill' }).flatten({ background: '#808080' }).toColourspace('srgb').raw().toBuffer(),
    sharp(view.mask, { raw: { width: view.maskWidth, height: view.maskHeight, channels: 1 } })
      .extract({
        left: maskLeft,
        top: maskTop,
        width: Math.max(1, Math.min(view.maskWidth - maskLeft, Math.round(crop.width * view.maskScaleX))),
        height: Math.max(1, Math.min(view.maskHeight - maskTop, Math.round(crop.height * view.maskScaleY))),
      })
      .resize(width, height, { fit: 'fill' })
      .toColourspace('b-w')
      .raw()
      .toBuffer(),
  ]);
  const meanLinear = meanColour(rgb, alpha);
  if (opaque) return { pixels: rgb, meanLinear };
  // The rim and the texels under transparency reach the screen through filtering: give them product colour.
  bleedColours(rgb, alpha, width, height, BLEED_PASSES);
  const rgba = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    rgba[i * 4] = rgb[i * 3];
    rgba[i * 4 + 1] = rgb[i * 3 + 1];
    rgba[i * 4 + 2] = rgb[i * 3 + 2];
    rgba[i * 4 + 3] = alpha[i];
  }
  return { pixels: rgba, meanLinear };
}

/** Average product colour, converted to the linear values baseColorFactor expects. */
function meanColour(rgb: Uint8Array, alpha: Uint8Array): [number, number, number] {
  const sum = [0, 0, 0];
  let n = 0;
  for (let i = 0; i < alpha.length; i++) {
    if (alpha[i] < 128) continue;
    for (let c = 0; c < 3; c++) sum[c] += rgb[i * 3 + c];
    n++;
  }
  const toLinear = (s: number) => (s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4);
  return sum.map((s) => toLinear(n ? s / n / 255 : 0.5)) as [number, number, number];
}

/** Two triangles facing `normal`, whatever order the corners go round in. */
function quad(name: string, corners: V3[], normal: V3, material: PartMaterial, uv?: [number, number][]): MeshPart {
  const [a, b, , d] = corners;
  const e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const e2 = [d[0] - a[0], d[1] - a[1], d[2] - a[2]];
  const facing = (e1[1] * e2[2] - e1[2] * e2[1]) * normal[0] + (e1[2] * e2[0] - e1[0] * e2[2]) * normal[1] + (e1[0] * e2[1] - e1[1] * e2[0]) * normal[2];
  return {
    name,
    positions: Float32Array.from(corners.flat()),
    normals: Float32Array.from(corners.flatMap(() => normal)),
    uvs: uv ? Float32Array.from(uv.flat()) : undefined,
    indices: Uint32Array.from(facing >= 0 ? [0, 1, 2, 0, 2, 3] : [0, 2, 1, 0, 3, 2]),
    material,
  };
}

/** One primitive per material keeps the GLB to two draw calls. */
function mergeByMaterial(parts: MeshPart[]): MeshPart[] {
  const groups = new Map<string, MeshPart[]>();
  for (const p of parts) groups.set(p.material.name, [...(groups.get(p.material.name) ?? []), p]);
  return [...groups.values()].map((group) => {
    let offset = 0;
    const indices: number[] = [];
    for (const p of group) {
      indices.push(...Array.from(p.indices, (i) => i + offset));
      offset += p.positions.length / 3;
    }
    const cat = (pick: (p: MeshPart) => Float32Array | undefined) =>
      group.every((p) => pick(p)) ? Float32Array.from(group.flatMap((p) => Array.from(pick(p)!))) : undefined;
    return { ...group[0], positions: cat((p) => p.positions)!, normals: cat((p) => p.normals)!, uvs: cat((p) => p.uvs), indices: Uint32Array.from(indices) };
  });
}
