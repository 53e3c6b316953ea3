import { createHash } from 'node:crypto';
import type { Document, Node, Texture } from '@gltf-transform/core';
import { EXTTextureWebP, type InstancedMesh } from '@gltf-transform/extensions';
import { cloneDocument, dedup, flatten, instance, join, meshopt, prune, simplify, weld } from '@gltf-transform/functions';
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
  /** Bytes of the encoded textures: the rest of `data` is geometry (and the container's few bytes). */
  textureBytes: number;
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

/** Seconds spent per step of the delivery (the bench prints them), added up over every attempt. */
export type DeliverySteps = Record<string, number>;

export async function timed<T>(steps: DeliverySteps, step: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    steps[step] = (steps[step] ?? 0) + (performance.now() - started) / 1000;
  }
}

interface EncodedImage {
  image: Uint8Array;
  mime: string;
}

/**
 * The master read once, cleaned up once per kind of file, and each texture resized and encoded once per size
 * and format: every attempt of every delivery starts from these instead of parsing the master again and
 * decoding its 4096 px images anew.
 */
export class PreparedMaster {
  readonly triangles: number;
  readonly maxTexturePx: number;
  private readonly cleaned = new Map<'glb' | 'usdz', Promise<Document>>();
  private readonly images = new Map<string, Promise<EncodedImage>>();
  /** The attempt being built: one at a time, as a copy of a heavy mesh being simplified is the step's memory peak. */
  private building: Promise<unknown> = Promise.resolve();

  private constructor(
    /** The master as read: never changed (each attempt works on a clone). */
    readonly doc: Document,
    readonly steps: DeliverySteps,
  ) {
    this.triangles = drawnTriangles(doc);
    this.maxTexturePx = maxTextureSide(doc);
  }

  static async read(master: Buffer, steps: DeliverySteps): Promise<PreparedMaster> {
    return new PreparedMaster(await timed(steps, 'read', () => readMaster(master)), steps);
  }

  /**
   * One attempt at a delivery: the cleaned-up master (dedup, instance, flatten, join, weld), meshoptimizer's
   * simplifier when `ratio` < 1 with locked borders and its own seam handling (UV and normal seams only collapse
   * along themselves), prune, textures resized and re-encoded through sharp, then meshopt compression for a GLB
   * or the USDZ writer for Quick Look.
   */
  build(kind: 'glb' | 'usdz', squeeze: Squeeze): Promise<Candidate> {
    const next = this.building.then(() => this.buildNow(kind, squeeze));
    this.building = next.catch(() => undefined);
    return next;
  }

  private async buildNow(kind: 'glb' | 'usdz', squeeze: Squeeze): Promise<Candidate> {
    const steps = this.steps;
    const doc = cloneDocument(await this.cleanedUp(kind));
    if (squeeze.ratio < 1) {
      await MeshoptSimplifier.ready;
      await timed(steps, 'simplify', () => doc.transform(simplify({ simplifier: MeshoptSimplifier, ratio: squeeze.ratio, error: SIMPLIFY_ERROR, lockBorder: true })));
    }
    await doc.transform(prune({ keepExtras: true }));
    await timed(steps, 'textures', () => this.encodeTextures(doc, squeeze.texturePx, kind === 'glb' ? 'webp' : 'usdz'));
    const triangles = drawnTriangles(doc);
    const maxTexturePx = maxTextureSide(doc);
    const textureBytes = doc.getRoot().listTextures().reduce((n, t) => n + (t.getImage()?.byteLength ?? 0), 0);
    const io = await meshCodecIO();
    if (kind === 'usdz') {
      const preview = await timed(steps, 'encode', async () => Buffer.from(await io.writeBinary(doc)));
      const { usdz } = await timed(steps, 'usdz', () => writeUsdz(doc, displayScene(doc), DEFAULT_MODEL_CAPS.maxTriangles));
      return { data: usdz, preview, triangles, maxTexturePx, textureBytes };
    }
    const data = await timed(steps, 'encode', async () => {
      await MeshoptEncoder.ready;
      await doc.transform(meshopt({ encoder: MeshoptEncoder, level: 'medium' }));
      return Buffer.from(await io.writeBinary(doc));
    });
    return { data, preview: data, triangles, maxTexturePx, textureBytes };
  }

  /** The USDZ written straight from the master, untouched. */
  async plainUsdz(): Promise<Buffer> {
    return (await timed(this.steps, 'usdz', () => writeUsdz(this.doc, displayScene(this.doc), DEFAULT_MODEL_CAPS.maxTriangles))).usdz;
  }

  private cleanedUp(kind: 'glb' | 'usdz'): Promise<Document> {
    let doc = this.cleaned.get(kind);
    if (!doc) {
      doc = timed(this.steps, 'clean-up', async () => {
        const copy = cloneDocument(this.doc);
        // The USDZ writer places each node's mesh on its own (USD here has no GPU instancing), so instancing is GLB-only.
        await copy.transform(dedup(), ...(kind === 'glb' ? [instance({ min: 5 })] : []), flatten(), join({ keepNamed: false }), weld());
        return copy;
      });
      this.cleaned.set(kind, doc);
    }
    return doc;
  }

  private async encodeTextures(doc: Document, maxPx: number, target: 'webp' | 'usdz'): Promise<void> {
    const withAlpha = alphaTextures(doc);
    const normals = new Set(doc.getRoot().listMaterials().map((m) => m.getNormalTexture()).filter((t): t is Texture => t !== null));
    const textures = doc.getRoot().listTextures();
    // One at a time: a 4096 px texture is 50 MB decoded, and libvips already spreads each over the cores.
    for (const texture of textures) {
      const image = texture.getImage();
      if (!image) continue;
      const format = target === 'webp' ? (normals.has(texture) ? 'webp-normal' : 'webp') : withAlpha.has(texture) ? 'png' : 'jpeg';
      const encoded = await this.encodeImage(image, maxPx, format);
      texture.setImage(encoded.image).setMimeType(encoded.mime);
      if (encoded.mime !== 'image/png') texture.setURI('');
    }
    if (target === 'webp' && textures.length > 0) doc.createExtension(EXTTextureWebP).setRequired(true);
  }

  private encodeImage(image: Uint8Array, maxPx: number, format: 'webp' | 'webp-normal' | 'png' | 'jpeg'): Promise<EncodedImage> {
    const key = `${imageId(image)}:${maxPx}:${format}`;
    let encoded = this.images.get(key);
    if (!encoded) {
      encoded = encodeImage(image, maxPx, format);
      this.images.set(key, encoded);
    }
    return encoded;
  }
}

/** A clone copies its images, so they are told apart by content (a hash of a 4096 px JPEG takes milliseconds). */
function imageId(image: Uint8Array): string {
  return createHash('sha1').update(image).digest('base64');
}

async function encodeImage(image: Uint8Array, maxPx: number, format: 'webp' | 'webp-normal' | 'png' | 'jpeg'): Promise<EncodedImage> {
  const pipeline = sharp(image, { limitInputPixels: MAX_TEXTURE_INPUT_PIXELS }).resize(maxPx, maxPx, { fit: 'inside', withoutEnlargement: true });
  // Normal maps carry directions, not colours: a little more quality keeps lighting from banding.
  const out =
    format === 'webp' || format === 'webp-normal'
      ? await pipeline.webp({ quality: format === 'webp-normal' ? 95 : WEBP_QUALITY, alphaQuality: 100 }).toBuffer()
      : format === 'png'
        ? await pipeline.png({ compressionLevel: 9 }).toBuffer()
        : await pipeline.jpeg({ quality: JPEG_QUALITY, chromaSubsampling: '4:4:4' }).toBuffer();
  const mime = format === 'png' ? 'image/png' : format === 'jpeg' ? 'image/jpeg' : 'image/webp';
  return { image: new Uint8Array(out.buffer, out.byteOffset, out.byteLength), mime };
}

