import { GLB_BUFFER, Logger, NodeIO, Primitive, type Document, type GLTF, type Texture } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { convertPrimitiveToTriangles, dedup, prune, unpartition, weld } from '@gltf-transform/functions';
import draco3d from 'draco3dgltf';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import sharp from 'sharp';
import { MediaError } from '../errors.js';
import type { ParsedContainer } from './model-container.js';

// gltf-transform logs every transform step at INFO to stdout; only problems matter to us.
export const quietLogger = new Logger(Logger.Verbosity.WARN);

let ioPromise: Promise<NodeIO> | null = null;

/**
 * One NodeIO per process. It never receives a fetch function or a path, so it
 * cannot read anything we did not hand it in a resource map.
 */
export function getIO(): Promise<NodeIO> {
  ioPromise ??= (async () => {
    // Both decoders are WebAssembly, loaded once per process: Draco- and meshopt-compressed models are common
    // exports of Blender, Sketchfab and most 3D scanners.
    const [, dracoDecoder] = await Promise.all([MeshoptDecoder.ready, draco3d.createDecoderModule()]);
    return new NodeIO()
      .setLogger(quietLogger)
      .registerExtensions(ALL_EXTENSIONS)
      .registerDependencies({ 'meshopt.decoder': MeshoptDecoder, 'draco3d.decoder': dracoDecoder });
  })();
  return ioPromise;
}

// Compression is decoded on read and dropped from the document: normalisation, the validator and the USDZ writer
// work on plain geometry. The pipeline encodes the stored GLB again with the input's method (model-compression.ts).
const DECODE_ONLY_EXTENSIONS = new Set(['EXT_meshopt_compression', 'KHR_draco_mesh_compression']);

export async function readDocument(container: ParsedContainer, resources: ReadonlyMap<string, Uint8Array>): Promise<Document> {
  const io = await getIO();
  // gltf-transform types resources as ArrayBuffer-backed; ours are Node Buffers (same bytes).
  const map = Object.fromEntries(resources) as Record<string, Uint8Array<ArrayBuffer>>;
  if (container.bin) map[GLB_BUFFER] = container.bin as Uint8Array<ArrayBuffer>;
  let doc: Document;
  try {
    doc = await io.readJSON({ json: container.json as unknown as GLTF.IGLTF, resources: map });
  } catch (err) {
    // The validator already passed the asset, so a failure here is almost always an
    // extension we cannot decode (Draco without a decoder, unknown required extensions).
    throw new MediaError('unsupported_model', `Model could not be read: ${(err as Error).message}`);
  }
  doc.setLogger(quietLogger);
  for (const ext of doc.getRoot().listExtensionsUsed()) {
    if (DECODE_ONLY_EXTENSIONS.has(ext.extensionName)) ext.dispose();
  }
  return doc;
}

export async function writeGlb(doc: Document): Promise<Buffer> {
  const io = await getIO();
  const bytes = await io.writeBinary(doc);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export interface NormalizeOptions {
  maxTextureSize: number;
}

export async function normalizeDocument(doc: Document, opts: NormalizeOptions): Promise<void> {
  // Strips and fans are legal glTF but poorly supported downstream (USD, some AR
  // viewers); plain triangle lists are what everything agrees on.
  for (const mesh of doc.getRoot().listMeshes()) {
    for (const prim of mesh.listPrimitives()) {
      const mode = prim.getMode();
      if (mode === Primitive.Mode.TRIANGLE_STRIP || mode === Primitive.Mode.TRIANGLE_FAN) {
        convertPrimitiveToTriangles(prim);
      }
    }
  }
  await doc.transform(dedup(), prune(), weld(), unpartition());
  await limitTextureSize(doc, opts.maxTextureSize);
  // Buffer URIs from a source .gltf mean nothing inside a GLB.
  for (const buffer of doc.getRoot().listBuffers()) buffer.setURI('');
  for (const texture of doc.getRoot().listTextures()) texture.setURI('');
}

const RESIZABLE = new Set(['image/png', 'image/jpeg', 'image/webp']);

/** Shrinks textures whose longer side exceeds `maxSize`, keeping their format. */
export async function limitTextureSize(doc: Document, maxSize: number): Promise<void> {
  for (const texture of doc.getRoot().listTextures()) {
    await limitOne(texture, maxSize);
  }
}

async function limitOne(texture: Texture, maxSize: number): Promise<void> {
  const image = texture.getImage();
  const mime = texture.getMimeType();
  // KTX2/AVIF and friends pass through untouched: sharp cannot re-encode them faithfully.
  if (!image || !RESIZABLE.has(mime)) return;
  let width: number | undefined;
  let height: number | undefined;
  try {
    ({ width, height } = await sharp(image).metadata());
  } catch (err) {
    throw new MediaError('corrupt_model', `Texture "${texture.getName()}" could not be decoded: ${(err as Error).message}`);
  }
  if (!width || !height || (width <= maxSize && height <= maxSize)) return;
  const scale = maxSize / Math.max(width, height);
  const target = {
    width: Math.max(1, Math.min(maxSize, Math.round(width * scale))),
    height: Math.max(1, Math.min(maxSize, Math.round(height * scale))),
  };
  let pipeline = sharp(image).resize({ ...target, fit: 'fill', kernel: 'lanczos3' });
  if (mime === 'image/png') pipeline = pipeline.png({ compressionLevel: 9, adaptiveFiltering: true });
  else if (mime === 'image/jpeg') pipeline = pipeline.jpeg({ quality: 90, mozjpeg: true });
  else pipeline = pipeline.webp({ quality: 90 });
  let out: Buffer;
  try {
    out = await pipeline.toBuffer();
  } catch (err) {
    throw new MediaError('corrupt_model', `Texture "${texture.getName()}" could not be resized: ${(err as Error).message}`);
  }
  texture.setImage(new Uint8Array(out.buffer, out.byteOffset, out.byteLength));
}
