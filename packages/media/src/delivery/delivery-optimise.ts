import type { Document, Node, Texture } from '@gltf-transform/core';
import { EXTTextureWebP, type InstancedMesh } from '@gltf-transform/extensions';
import { dedup, flatten, instance, join, meshopt, prune, simplify, weld } from '@gltf-transform/functions';
import { MeshoptEncoder, MeshoptSimplifier } from 'meshoptimizer';
import sharp from 'sharp';
import { meshCodecIO } from '../gltf/model-compression.js';
import { displayScene, primitiveTriangles } from '../gltf/model-stats.js';
import { writeUsdz } from '../usdz/usdz-writer.js';
import { DEFAULT_MODEL_CAPS } from '../gltf/model-caps.js';

/** How hard one attempt squeezes: the share of triangles kept and the longest texture side. */
export interface Squeeze {
  /** 0 < ratio ≤ 1; 1 skips simplification. */
  ratio: number;
  texturePx: number;
}

export interface Candidate {
  /** The delivered bytes: a meshopt-compressed GLB with WebP textures, or a USDZ. */
  data: Buffer;
  /** A plain GLB of the same document, for the renderer (the USDZ cannot be drawn in a browser). */
  preview: Buffer;
  triangles: number;
  maxTexturePx: number;
}

/**
 * Simplification stops at this error (a share of each mesh's radius) even short of the triangle target,
 * so a budget never buys a visibly different shape; the fidelity check judges what is left.
 */
const SIMPLIFY_ERROR = 0.01;
const MAX_TEXTURE_INPUT_PIXELS = 16_384 * 16_384;
const WEBP_QUALITY = 88;
const JPEG_QUALITY = 90;

export async function readMaster(master: Buffer): Promise<Document> {
  return (await meshCodecIO()).readBinary(master);
}

/** Triangles drawn by the displayed scene, instances counted as many times as they are drawn. */
export function drawnTriangles(doc: Document): number {
  let total = 0;
  displayScene(doc).traverse((node: Node) => {
    const mesh = node.getMesh();
    if (!mesh) return;
    const instancing = node.getExtension<InstancedMesh>('EXT_mesh_gpu_instancing');
    const copies = instancing?.listAttributes()[0]?.getCount() ?? 1;
    for (const prim of mesh.listPrimitives()) total += primitiveTriangles(prim) * copies;
  });
  return total;
}

export function maxTextureSide(doc: Document): number {
  let max = 0;
  for (const t of doc.getRoot().listTextures()) {
    const size = t.getSize();
    if (size) max = Math.max(max, size[0], size[1]);
  }
  return max;
}

/** Textures a material reads with alpha: they keep an alpha channel (PNG in the USDZ). */
function alphaTextures(doc: Document): Set<Texture> {
  const out = new Set<Texture>();
  for (const m of doc.getRoot().listMaterials()) {
    const t = m.getBaseColorTexture();
    if (t && m.getAlphaMode() !== 'OPAQUE') out.add(t);
  }
  return out;
}

async function encodeTextures(doc: Document, maxPx: number, target: 'webp' | 'usdz'): Promise<void> {
  const withAlpha = alphaTextures(doc);
  const normals = new Set(doc.getRoot().listMaterials().map((m) => m.getNormalTexture()).filter((t): t is Texture => t !== null));
  for (const texture of doc.getRoot().listTextures()) {
    const image = texture.getImage();
    if (!image) continue;
    let pipeline = sharp(image, { limitInputPixels: MAX_TEXTURE_INPUT_PIXELS }).resize(maxPx, maxPx, { fit: 'inside', withoutEnlargement: true });
    let mime: string;
    if (target === 'webp') {
      // Normal maps carry directions, not colours: a little more quality keeps lighting from banding.
      pipeline = pipeline.webp({ quality: normals.has(texture) ? 95 : WEBP_QUALITY, alphaQuality: 100 });
      mime = 'image/webp';
    } else if (withAlpha.has(texture)) {
      pipeline = pipeline.png({ compressionLevel: 9 });
      mime = 'image/png';
    } else {
      pipeline = pipeline.jpeg({ quality: JPEG_QUALITY, chromaSubsampling: '4:4:4' });
      mime = 'image/jpeg';
    }
    const out = await pipeline.toBuffer();
    texture.setImage(new Uint8Array(out.buffer, out.byteOffset, out.byteLength)).setMimeType(mime);
    if (mime !== 'image/png') texture.setURI('');
  }
  if (target === 'webp' && doc.getRoot().listTextures().length > 0) doc.createExtension(EXTTextureWebP).setRequired(true);
}

/**
 * One attempt at a delivery from the master: the same clean-up every time (dedup, instance, flatten, join,
 * weld, prune), meshoptimizer's simplifier when `ratio` < 1 with locked borders and its own seam handling
 * (UV and normal seams only collapse along themselves), textures resized and re-encoded through sharp,
 * then meshopt compression for a GLB or the USDZ writer for Quick Look.
 */
export async function buildCandidate(master: Buffer, kind: 'glb' | 'usdz', squeeze: Squeeze): Promise<Candidate> {
  const io = await meshCodecIO();
  const doc = await readMaster(master);
  await MeshoptSimplifier.ready;
  // The USDZ writer places each node's mesh on its own (USD here has no GPU instancing), so instancing is GLB-only.
  const steps = [dedup(), ...(kind === 'glb' ? [instance({ min: 5 })] : []), flatten(), join({ keepNamed: false }), weld()];
  if (squeeze.ratio < 1) steps.push(simplify({ simplifier: MeshoptSimplifier, ratio: squeeze.ratio, error: SIMPLIFY_ERROR, lockBorder: true }));
  steps.push(prune({ keepExtras: true }));
  await doc.transform(...steps);
  await encodeTextures(doc, squeeze.texturePx, kind === 'glb' ? 'webp' : 'usdz');
  const triangles = drawnTriangles(doc);
  const maxTexturePx = maxTextureSide(doc);
  if (kind === 'usdz') {
    const preview = Buffer.from(await io.writeBinary(doc));
    const { usdz } = await writeUsdz(doc, displayScene(doc), DEFAULT_MODEL_CAPS.maxTriangles);
    return { data: usdz, preview, triangles, maxTexturePx };
  }
  await MeshoptEncoder.ready;
  await doc.transform(meshopt({ encoder: MeshoptEncoder, level: 'medium' }));
  const data = Buffer.from(await io.writeBinary(doc));
  return { data, preview: data, triangles, maxTexturePx };
}

/** The master's own numbers, for the pass-through decision and the back-off's ceiling. */
export async function measureMaster(master: Buffer): Promise<{ triangles: number; maxTexturePx: number; doc: Document }> {
  const doc = await readMaster(master);
  return { triangles: drawnTriangles(doc), maxTexturePx: maxTextureSide(doc), doc };
}
