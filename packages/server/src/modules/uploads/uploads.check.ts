import { open } from 'node:fs/promises';
import { sniffImageFormat, type AcceptedFormat } from '@plinth/media';
import sharp from 'sharp';
import { AppError, validationFailed } from '../../core/errors.js';

/**
 * An upload is accepted only after it decodes: the first bytes choose which decoder to try, the
 * decoder decides. A file that merely starts like a PNG is refused, and nothing is stored for it.
 */
export interface CheckedUpload {
  kind: 'image' | 'model';
  contentType: string;
  ext: string;
}

const IMAGE_TYPES: Record<AcceptedFormat, { type: string; ext: string }> = {
  jpeg: { type: 'image/jpeg', ext: 'jpg' },
  png: { type: 'image/png', ext: 'png' },
  webp: { type: 'image/webp', ext: 'webp' },
  gif: { type: 'image/gif', ext: 'gif' },
  avif: { type: 'image/avif', ext: 'avif' },
};

/** The largest texture DESIGN's model caps allow is also the largest photo worth decoding. */
const MAX_IMAGE_PIXELS = 16_384 * 16_384;
/** A GLB's JSON chunk describes the scene; real ones are kilobytes, so a huge one is refused unread. */
const MAX_GLB_JSON_BYTES = 32 * 1024 * 1024;

const GLB_MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

const refused = (message: string) => validationFailed([{ path: 'body', message }], 'The upload is not a readable image or GLB model.');

export const ACCEPTED_UPLOAD_TYPES = [...Object.values(IMAGE_TYPES).map((t) => t.type), 'model/gltf-binary'];

function looksLikeGlb(head: Buffer): boolean {
  return head.length >= 4 && head.readUInt32LE(0) === GLB_MAGIC;
}

const unsupported = () =>
  new AppError('unsupported_media_type', `Uploads must be images (${ACCEPTED_UPLOAD_TYPES.slice(0, -1).join(', ')}) or GLB models.`, { accepted: ACCEPTED_UPLOAD_TYPES });

/** 415 for a kind of file we never take; 422 for one that claims an accepted kind and does not decode as it. */
export async function checkUpload(file: string, head: Buffer, bytes: number): Promise<CheckedUpload> {
  if (bytes === 0) throw validationFailed([{ path: 'body', message: 'is empty' }], 'The upload is empty.');
  if (looksLikeGlb(head)) return checkGlb(file, bytes);
  // The container chooses the decoder (and keeps libvips' SVG, PDF and TIFF parsers away); the decoder decides.
  const sniffed = sniffImageFormat(head);
  if (!sniffed) throw unsupported();
  return checkImage(file, sniffed);
}

/**
 * Metadata first (cheap, refuses most junk), then a decode of every pixel into a small thumbnail:
 * a valid header over corrupt or truncated data fails here. sequentialRead keeps libvips streaming
 * through the file instead of holding it whole; limitInputPixels refuses decompression bombs unread.
 */
async function checkImage(file: string, sniffed: AcceptedFormat): Promise<CheckedUpload> {
  const options = { limitInputPixels: MAX_IMAGE_PIXELS, sequentialRead: true, failOn: 'error' as const };
  try {
    const meta = await sharp(file, options).metadata();
    // libvips must decode the container the bytes announced (AVIF is a HEIF container holding AV1).
    const decoded = meta.format === 'heif' && meta.compression === 'av1' ? 'avif' : meta.format;
    if (decoded !== sniffed) throw new Error('container and codec disagree');
    await sharp(file, options).resize(64, 64, { fit: 'inside' }).raw().toBuffer();
  } catch {
    throw refused(`could not be decoded as ${sniffed.toUpperCase()} (accepted: ${ACCEPTED_UPLOAD_TYPES.join(', ')})`);
  }
  const t = IMAGE_TYPES[sniffed];
  return { kind: 'image', contentType: t.type, ext: t.ext };
}

async function readAt(file: string, position: number, length: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, position);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/**
 * The GLB container, read as the format defines it: header, a JSON chunk that parses to a glTF 2.0
 * asset, an optional BIN chunk, lengths that add up to the file. Buffers must live inside the file
 * (or be data: URIs): an uploaded model cannot point at other files. The full validation and the
 * complexity caps run at import, in the ingestion job.
 */
async function checkGlb(file: string, bytes: number): Promise<CheckedUpload> {
  const header = await readAt(file, 0, 20);
  if (header.length < 20) throw refused('is too short to be a GLB model');
  const version = header.readUInt32LE(4);
  const length = header.readUInt32LE(8);
  const jsonLength = header.readUInt32LE(12);
  if (version !== 2) throw refused(`is a GLB of version ${version}; only glTF 2.0 is accepted`);
  if (length !== bytes) throw refused(`declares ${length} bytes but has ${bytes}`);
  if (header.readUInt32LE(16) !== CHUNK_JSON) throw refused('has no JSON chunk first');
  if (jsonLength === 0 || jsonLength % 4 !== 0 || 20 + jsonLength > bytes || jsonLength > MAX_GLB_JSON_BYTES) {
    throw refused('has a JSON chunk of impossible length');
  }
  let json: { asset?: { version?: unknown }; buffers?: { uri?: unknown; byteLength?: unknown; extensions?: { EXT_meshopt_compression?: { fallback?: unknown } } }[] };
  try {
    json = JSON.parse((await readAt(file, 20, jsonLength)).toString('utf8'));
  } catch {
    throw refused('has a JSON chunk that does not parse');
  }
  if (typeof json !== 'object' || json === null || typeof json.asset?.version !== 'string' || !json.asset.version.startsWith('2.')) {
    throw refused('is not a glTF 2.0 asset (asset.version)');
  }
  let binLength = 0;
  const next = 20 + jsonLength;
  if (next < bytes) {
    const chunk = await readAt(file, next, 8);
    if (chunk.length < 8 || chunk.readUInt32LE(4) !== CHUNK_BIN) throw refused('has a second chunk that is not BIN');
    binLength = chunk.readUInt32LE(0);
    if (next + 8 + binLength > bytes) throw refused('has a BIN chunk longer than the file');
  }
  const buffers = Array.isArray(json.buffers) ? json.buffers : [];
  for (const [i, b] of buffers.entries()) {
    if (typeof b?.uri === 'string' && !b.uri.startsWith('data:')) throw refused(`buffers[${i}] points at another file; upload a self-contained GLB`);
    // A meshopt fallback buffer (gltfpack, gltf-transform) declares the decoded size and holds no bytes at all.
    if (b?.extensions?.EXT_meshopt_compression?.fallback === true && b.uri === undefined) continue;
    if (b?.uri === undefined && (typeof b?.byteLength !== 'number' || b.byteLength > binLength)) throw refused(`buffers[${i}] is larger than the BIN chunk`);
  }
  return { kind: 'model', contentType: 'model/gltf-binary', ext: 'glb' };
}
