import sharp from 'sharp';
import { MediaError } from '../errors.js';
import type { GltfJson } from './model-container.js';

/** Input caps for models: what a hostile or careless file may declare before we refuse it. */
export interface ModelCaps {
  /** triangles after instancing, over every scene */
  maxTriangles: number;
  maxNodes: number;
  /** longest parent → child chain */
  maxDepth: number;
  /** pixels on a texture's longer side */
  maxTextureSide: number;
  /** pixels of all textures together */
  maxTexturePixels: number;
  /** bytes the buffers declare */
  maxBufferBytes: number;
}

export const DEFAULT_MODEL_CAPS: Readonly<ModelCaps> = Object.freeze({
  maxTriangles: 2_000_000,
  maxNodes: 10_000,
  maxDepth: 64,
  maxTextureSide: 16_384,
  maxTexturePixels: 256_000_000,
  maxBufferBytes: 200 * 1024 * 1024,
});

const tooComplex = (cap: keyof ModelCaps, limit: number, found: number, message: string) =>
  new MediaError('model_too_complex', message, { cap, limit, found });

type JsonNode = { children?: unknown; mesh?: unknown; extensions?: { EXT_mesh_gpu_instancing?: { attributes?: Record<string, unknown> } } };
type JsonPrimitive = { indices?: unknown; mode?: unknown; attributes?: Record<string, unknown> };

const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
const index = (v: unknown, length: number): number | null => (Number.isInteger(v) && (v as number) >= 0 && (v as number) < length ? (v as number) : null);

/** Triangles one primitive draws, from the counts its accessors declare (Draco's included): nothing is read. */
function primitiveTriangles(prim: JsonPrimitive, accessors: { count?: unknown }[]): number {
  const mode = prim.mode ?? 4;
  const source = index(prim.indices, accessors.length) ?? index(prim.attributes?.POSITION, accessors.length);
  const count = source === null ? 0 : Number(accessors[source]?.count) || 0;
  if (mode === 4) return Math.floor(count / 3);
  if (mode === 5 || mode === 6) return Math.max(0, count - 2);
  return 0; // points and lines draw no triangles
}

/**
 * Checks what a glTF's JSON declares against the caps, before the validator, the loader, the normaliser or
 * the USDZ writer allocate anything: node count, depth of the node graph (walked with an explicit stack,
 * never by recursion, so a 10,000-deep chain costs nothing), cycles and shared children, triangles after
 * instancing, and declared buffer bytes. Throws MediaError('model_too_complex') naming the cap, or
 * 'invalid_gltf' for a node graph that is not a forest.
 */
export function checkDeclaredCaps(json: GltfJson, caps: ModelCaps = DEFAULT_MODEL_CAPS): void {
  const nodes = list<JsonNode>(json.nodes);
  if (nodes.length > caps.maxNodes) {
    throw tooComplex('maxNodes', caps.maxNodes, nodes.length, `The model has ${nodes.length} nodes; at most ${caps.maxNodes} are allowed.`);
  }
  const declared = list<{ byteLength?: unknown }>(json.buffers).reduce((sum, b) => sum + (Number(b.byteLength) || 0), 0);
  if (declared > caps.maxBufferBytes) {
    throw tooComplex('maxBufferBytes', caps.maxBufferBytes, declared, `The model declares ${declared} bytes of buffers; at most ${caps.maxBufferBytes} are allowed.`);
  }

  const meshes = list<{ primitives?: unknown }>(json.meshes);
  const accessors = list<{ count?: unknown }>(json.accessors);
  const meshTriangles = meshes.map((m) => list<JsonPrimitive>(m?.primitives).reduce((sum, p) => sum + primitiveTriangles(p ?? {}, accessors), 0));

  // Each node may have one parent (glTF 2.0 §3.5.3). Count parents first: more than one is a shared child
  // or a cycle; a node with none is a root. Then walk down from the roots with an explicit stack.
  const parents = new Uint32Array(nodes.length);
  for (const node of nodes) {
    for (const c of list<unknown>(node?.children)) {
      const child = index(c, nodes.length);
      if (child === null) continue; // the validator reports a dangling index
      if (++parents[child] > 1) throw new MediaError('invalid_gltf', `Node ${child} has more than one parent (the node graph must be a tree).`, { node: child });
    }
  }
  const depth = new Int32Array(nodes.length).fill(-1);
  const stack: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    if (parents[i] === 0) {
      depth[i] = 1;
      stack.push(i);
    }
  }
  let triangles = 0;
  let reached = 0;
  while (stack.length > 0) {
    const i = stack.pop()!;
    reached++;
    if (depth[i] > caps.maxDepth) {
      throw tooComplex('maxDepth', caps.maxDepth, depth[i], `The model's node hierarchy is more than ${caps.maxDepth} levels deep.`);
    }
    const node = nodes[i] ?? {};
    const mesh = index(node.mesh, meshes.length);
    if (mesh !== null) {
      const instancing = node.extensions?.EXT_mesh_gpu_instancing?.attributes;
      const instanceAccessor = instancing ? index(Object.values(instancing)[0], accessors.length) : null;
      const instances = instanceAccessor === null ? 1 : Math.max(1, Number(accessors[instanceAccessor]?.count) || 1);
      triangles += meshTriangles[mesh] * instances;
      if (triangles > caps.maxTriangles) {
        throw tooComplex('maxTriangles', caps.maxTriangles, triangles, `The model draws more than ${caps.maxTriangles} triangles once its instances are counted.`);
      }
    }
    for (const c of list<unknown>(node.children)) {
      const child = index(c, nodes.length);
      if (child === null) continue;
      depth[child] = depth[i] + 1;
      stack.push(child);
    }
  }
  // Every node has at most one parent, so a node no root reaches sits on a cycle.
  if (reached < nodes.length) {
    const stuck = depth.findIndex((d) => d === -1);
    throw new MediaError('invalid_gltf', `Node ${stuck} is its own ancestor (the node graph has a cycle).`, { node: stuck });
  }
}

/**
 * Reads each texture's size from its header (no pixel is decoded) and checks the per-texture and total caps.
 * `imageBytes` holds the encoded images: from the GLB's BIN chunk, data URIs or fetched resources.
 */
export async function checkTextureCaps(imageBytes: Uint8Array[], caps: ModelCaps = DEFAULT_MODEL_CAPS): Promise<void> {
  let total = 0;
  for (const bytes of imageBytes) {
    let width = 0;
    let height = 0;
    try {
      ({ width = 0, height = 0 } = await sharp(bytes, { limitInputPixels: false }).metadata());
    } catch {
      continue; // unreadable images are the normaliser's to report, with the texture's name
    }
    const side = Math.max(width, height);
    if (side > caps.maxTextureSide) {
      throw tooComplex('maxTextureSide', caps.maxTextureSide, side, `A texture is ${width}×${height} pixels; at most ${caps.maxTextureSide} on a side are allowed.`);
    }
    total += width * height;
    if (total > caps.maxTexturePixels) {
      throw tooComplex('maxTexturePixels', caps.maxTexturePixels, total, `The model's textures hold more than ${caps.maxTexturePixels} pixels together.`);
    }
  }
}

/** The encoded bytes of each image a glTF declares, without decoding any: slices of buffers, data URIs, fetched files. */
export function declaredImages(json: GltfJson, bin: Uint8Array | null, resources: Map<string, Uint8Array>): Uint8Array[] {
  const views = list<{ buffer?: unknown; byteOffset?: unknown; byteLength?: unknown }>(json.bufferViews);
  const buffers = list<{ uri?: string }>(json.buffers);
  const bufferBytes = (b: number): Uint8Array | null => {
    const uri = buffers[b]?.uri;
    if (uri === undefined) return b === 0 ? bin : null;
    return resources.get(uri) ?? dataUri(uri);
  };
  const out: Uint8Array[] = [];
  for (const image of list<{ uri?: string; bufferView?: unknown }>(json.images)) {
    let bytes: Uint8Array | null = null;
    const view = index(image?.bufferView, views.length);
    if (view !== null) {
      const v = views[view];
      const buffer = index(v.buffer, buffers.length);
      const data = buffer === null ? null : bufferBytes(buffer);
      const start = Number(v.byteOffset) || 0;
      const length = Number(v.byteLength) || 0;
      if (data && start + length <= data.byteLength) bytes = data.subarray(start, start + length);
    } else if (typeof image?.uri === 'string') {
      bytes = resources.get(image.uri) ?? dataUri(image.uri);
    }
    if (bytes) out.push(bytes);
  }
  return out;
}

function dataUri(uri: string): Uint8Array | null {
  const m = /^data:[^,]*;base64,/i.exec(uri);
  return m ? Buffer.from(uri.slice(m[0].length), 'base64') : null;
}
