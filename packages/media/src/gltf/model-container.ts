import { MediaError } from '../errors.js';

// glTF's GLB container, parsed strictly: a wrong length or a chunk running past
// the end means the upload is damaged, and we would rather say so than guess.

const GLB_MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a; // 'JSON'
const CHUNK_BIN = 0x004e4942; // 'BIN\0'

export type GltfJson = Record<string, unknown> & {
  buffers?: { uri?: string; byteLength?: number }[];
  images?: { uri?: string; bufferView?: number; mimeType?: string }[];
};

export interface ParsedContainer {
  format: 'glb' | 'gltf';
  json: GltfJson;
  /** The GLB BIN chunk, when there is one. */
  bin: Uint8Array | null;
}

function corrupt(message: string, details?: Record<string, unknown>): MediaError {
  return new MediaError('corrupt_model', message, details);
}

export function isGlb(data: Uint8Array): boolean {
  return data.byteLength >= 4 && readU32(data, 0) === GLB_MAGIC;
}

function readU32(data: Uint8Array, offset: number): number {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true);
}

function parseJsonObject(bytes: Uint8Array, where: string): GltfJson {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw corrupt(`${where} is not valid UTF-8`);
  }
  // A BOM is tolerated by most tools; the validator reports it as a warning.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw corrupt(`${where} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw corrupt(`${where} is not a JSON object`);
  }
  return value as GltfJson;
}

export function parseGlb(data: Uint8Array): ParsedContainer {
  if (data.byteLength < 20) throw corrupt('GLB is too short to hold a header and a JSON chunk');
  const version = readU32(data, 4);
  if (version !== 2) throw corrupt(`GLB version ${version} is not supported (only glTF 2.0)`, { version });
  const declared = readU32(data, 8);
  if (declared !== data.byteLength) {
    throw corrupt(`GLB header declares ${declared} bytes but the file has ${data.byteLength}`, {
      declaredLength: declared,
      actualLength: data.byteLength,
    });
  }
  let json: GltfJson | null = null;
  let bin: Uint8Array | null = null;
  let offset = 12;
  let index = 0;
  while (offset < data.byteLength) {
    if (offset + 8 > data.byteLength) throw corrupt(`GLB chunk ${index} header is truncated`);
    const length = readU32(data, offset);
    const type = readU32(data, offset + 4);
    const start = offset + 8;
    if (start + length > data.byteLength) {
      throw corrupt(`GLB chunk ${index} runs past the end of the file`, { chunk: index, length });
    }
    const body = data.subarray(start, start + length);
    if (index === 0) {
      if (type !== CHUNK_JSON) throw corrupt('GLB first chunk is not JSON');
      json = parseJsonObject(body, 'GLB JSON chunk');
    } else if (type === CHUNK_BIN) {
      if (bin) throw corrupt('GLB has more than one BIN chunk');
      if (index !== 1) throw corrupt('GLB BIN chunk must directly follow the JSON chunk');
      bin = body;
    }
    // Unknown chunk types must be ignored per the spec.
    offset = start + length;
    index++;
  }
  if (!json) throw corrupt('GLB has no JSON chunk');
  return { format: 'glb', json, bin };
}

export function parseContainer(data: Uint8Array): ParsedContainer {
  if (isGlb(data)) return parseGlb(data);
  // Anything that is not a GLB must be glTF JSON; skip leading whitespace/BOM to sniff it.
  let i = 0;
  if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) i = 3;
  while (i < data.byteLength && (data[i] === 0x20 || data[i] === 0x0a || data[i] === 0x0d || data[i] === 0x09)) i++;
  if (data[i] !== 0x7b /* { */) throw corrupt('Not a glTF 2.0 file: expected GLB or glTF JSON');
  return { format: 'gltf', json: parseJsonObject(data, 'glTF JSON'), bin: null };
}

/** Every external URI the asset points at (buffers and images), deduplicated, data: URIs excluded. */
export function listExternalUris(json: GltfJson): string[] {
  const uris = new Set<string>();
  const collect = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const entry of list) {
      const uri = (entry as { uri?: unknown } | null)?.uri;
      if (typeof uri !== 'string') continue;
      if (/^data:/i.test(uri)) continue;
      uris.add(uri);
    }
  };
  collect(json.buffers);
  collect(json.images);
  return [...uris];
}

/**
 * Turns a URI found inside the asset into an absolute http(s) URL, or refuses it.
 * Absolute paths and non-http schemes are refused outright: they can only mean
 * "read something on the server" (file:, /etc/...) or speak protocols our guarded
 * fetcher was never designed to police.
 */
export function resolveResourceUrl(uri: string, baseUrl: string | null): string {
  const refuse = (why: string) =>
    new MediaError('external_uri_refused', `External resource URI ${JSON.stringify(uri)} refused: ${why}`, { uri });
  const trimmed = uri.trim();
  if (trimmed === '') throw refuse('empty URI');
  if (trimmed.startsWith('/') || trimmed.startsWith('\\')) throw refuse('absolute paths are not allowed');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (scheme !== 'http' && scheme !== 'https') throw refuse(`scheme "${scheme}:" is not allowed`);
    try {
      return new URL(trimmed).href;
    } catch {
      throw refuse('malformed URL');
    }
  }
  if (baseUrl === null) throw refuse('relative URI but the model has no base URL');
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw refuse('relative URI but the model URL is malformed');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw refuse('relative URI against a non-http base');
  let resolved: URL;
  try {
    resolved = new URL(trimmed, base);
  } catch {
    throw refuse('malformed relative URL');
  }
  if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:') throw refuse('does not resolve to http(s)');
  return resolved.href;
}
