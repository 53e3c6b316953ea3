import type { Document } from '@gltf-transform/core';
import { MediaError } from '../errors.js';
import { checkDeclaredCaps, checkTextureCaps, declaredImages, DEFAULT_MODEL_CAPS, type ModelCaps } from './model-caps.js';
import { compressGlb, declaredCompression, type MeshCompression } from './model-compression.js';
import { listExternalUris, parseContainer } from './model-container.js';
import { normalizeDocument, readDocument, writeGlb } from './model-normalize.js';
import { fetchExternalResources, type FetchBytes } from './model-resources.js';
import { bakeSkinsAtRest } from './model-rest-pose.js';
import { countTriangles, displayScene, measureDimensions, modelWarnings, type ModelWarning } from './model-stats.js';
import { UnrecognisedAsset, validateAsset, validateGlb } from './model-validate.js';
import { writeUsdz } from '../usdz/usdz-writer.js';
import { writeVariantUsdz } from './model-variants.js';

export type { FetchBytes } from './model-resources.js';
export { DEFAULT_MODEL_CAPS, type ModelCaps } from './model-caps.js';
export { validateGlb } from './model-validate.js';

/** Metres, from the displayed scene's world-space bounding box (x, y, z). */
export interface ModelDimensions {
  width: number;
  height: number;
  depth: number;
}

export interface ProcessedModel {
  /** The stored GLB: Draco- or meshopt-compressed when the input was, else plain. */
  glb: Buffer;
  /** The input's mesh compression, kept on `glb`; null when the input had none or re-encoding it failed its check. */
  compression: MeshCompression | null;
  usdz: Buffer;
  dimensions: ModelDimensions;
  triangles: number;
  /** Size of the GLB. */
  bytes: number;
  /** Validator result for the output GLB (errors is always 0 when returned). */
  validation: { errors: number; warnings: number };
  /** What a reviewer should look at (a size that suggests wrong units); recomputed by every rescale. */
  warnings: ModelWarning[];
  /** KHR_materials_variants names, kept in `glb`; empty when the model has none. */
  variants: string[];
  /** One USDZ per variant, in `variants` order (Quick Look cannot switch variants). */
  usdzVariants: { name: string; usdz: Buffer }[];
}

export interface ProcessModelOptions {
  /** Longest texture side after normalisation. */
  maxTextureSize?: number;
  /** Budget for the main file plus all external resources. */
  maxBytes?: number;
  /** Input caps (triangles, nodes, depth, textures, buffers); default DEFAULT_MODEL_CAPS. */
  caps?: ModelCaps;
}

const DEFAULT_MAX_TEXTURE_SIZE = 2048;
const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
const MAX_EXTERNAL_RESOURCES = 256;
const FETCH_CONCURRENCY = 4;
const REPORTED_MESSAGES = 20;

function tooLarge(bytes: number, limit: number): MediaError {
  return new MediaError('model_too_large', `Model is ${bytes} bytes; the limit is ${limit}`, { bytes, limit });
}

export async function processModel(url: string, fetchBytes: FetchBytes, opts: ProcessModelOptions = {}): Promise<ProcessedModel> {
  // A failure here is about the model URL itself; the caller's fetcher already
  // classifies it (refused address vs transient), so it is passed through untouched.
  const data = await fetchBytes(url);
  return processModelBuffer(data, url, fetchBytes, opts);
}

export async function processModelBuffer(
  data: Buffer,
  baseUrl: string | null,
  fetchBytes: FetchBytes,
  opts: ProcessModelOptions = {},
): Promise<ProcessedModel> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxTextureSize = opts.maxTextureSize ?? DEFAULT_MAX_TEXTURE_SIZE;
  if (data.byteLength > maxBytes) throw tooLarge(data.byteLength, maxBytes);

  const container = parseContainer(data);
  const caps = opts.caps ?? DEFAULT_MODEL_CAPS;
  // Before anything is fetched, validated or loaded: what the JSON declares must fit the caps.
  checkDeclaredCaps(container.json, caps);
  const resources = await fetchExternalResources(listExternalUris(container.json), baseUrl, fetchBytes, {
    maxBytes: maxBytes - data.byteLength,
    maxResources: MAX_EXTERNAL_RESOURCES,
    concurrency: FETCH_CONCURRENCY,
  });

  await checkTextureCaps(declaredImages(container.json, container.bin, resources), caps);

  let report;
  try {
    report = await validateAsset(data, resources, { format: container.format });
  } catch (err) {
    if (err instanceof UnrecognisedAsset) throw new MediaError('corrupt_model', `Not a readable glTF asset: ${err.message}`);
    throw err;
  }
  if (report.errors > 0) {
    // Errors first: they are what the user has to fix; warnings are context.
    const messages = [...report.messages].sort((a, b) => a.severity - b.severity).slice(0, REPORTED_MESSAGES);
    const first = messages[0];
    throw new MediaError(
      'invalid_gltf',
      `Model failed glTF validation with ${report.errors} error(s)` + (first ? `; first: ${first.code}: ${first.message}` : ''),
      { errors: report.errors, warnings: report.warnings, report: messages },
    );
  }

  const doc = await readDocument(container, resources);
  await normalizeDocument(doc, { maxTextureSize });
  return finish(doc, caps, declaredCompression(container.json));
}

/**
 * Measures, writes and re-validates; shared by import and rescale. The validator cannot look inside Draco or
 * meshopt, so the plain GLB is the one validated and the USDZ's source; a compressed copy is then stored.
 */
async function finish(doc: Document, caps: ModelCaps, keep: MeshCompression | null): Promise<ProcessedModel> {
  const scene = displayScene(doc);
  const dimensions = measureDimensions(scene);
  const triangles = countTriangles(scene);
  if (triangles === 0) throw new MediaError('empty_model', 'Model has no triangle geometry to display');

  const glb = await writeGlb(doc);
  const check = await validateGlb(glb);
  if (check.errors > 0) {
    // The input passed validation, so this is our normalisation's fault, not the user's.
    const detail = check.messages.filter((m) => m.severity === 0).slice(0, 5).map((m) => `${m.code} ${m.pointer ?? ''}: ${m.message}`);
    throw new Error(`Normalised GLB failed validation with ${check.errors} error(s): ${detail.join('; ')}`);
  }
  // USDZ has no skins: skinned meshes go in as shown at rest (the GLB above keeps its skins).
  bakeSkinsAtRest(doc, scene);
  const { usdz } = await writeUsdz(doc, scene, caps.maxTriangles);
  const usdzVariants = await writeVariantUsdz(doc, scene, caps.maxTriangles);
  const compressed = keep ? await compressGlb(glb, keep, { dimensions, triangles }) : null;
  const stored = compressed ?? glb;
  return {
    glb: stored,
    compression: compressed ? keep : null,
    usdz,
    dimensions,
    triangles,
    bytes: stored.byteLength,
    validation: { errors: check.errors, warnings: check.warnings },
    warnings: modelWarnings(dimensions),
    variants: usdzVariants.map((v) => v.name),
    usdzVariants,
  };
}

export type RescaleTarget = number | { width?: number; height?: number; depth?: number };

const SCALE_ROOT_NAME = 'PlinthScale';

/** Uniform factor from a number, or from target dimensions (all given targets must agree within 1%). */
export function scaleFactor(current: ModelDimensions, target: RescaleTarget): number {
  const invalid = (message: string) => new MediaError('invalid_scale', message, { target });
  if (typeof target === 'number') {
    if (!Number.isFinite(target) || target <= 0) throw invalid('Scale factor must be a positive number');
    return target;
  }
  const factors: number[] = [];
  for (const axis of ['width', 'height', 'depth'] as const) {
    const want = target[axis];
    if (want === undefined) continue;
    if (!Number.isFinite(want) || want <= 0) throw invalid(`Target ${axis} must be a positive number of metres`);
    if (!(current[axis] > 0)) throw invalid(`Model has no extent along ${axis}; cannot scale to a target ${axis}`);
    factors.push(want / current[axis]);
  }
  if (factors.length === 0) throw invalid('Give a scale factor or at least one target dimension');
  const [first] = factors;
  if (factors.some((f) => Math.abs(f / first - 1) > 0.01)) {
    throw invalid('Target dimensions imply different scale factors; the scale must be uniform');
  }
  return first;
}

/**
 * Wraps each scene's roots in one scale node rather than touching their own
 * transforms, so animations that drive root TRS keep working. A second rescale
 * multiplies into the existing wrapper instead of nesting another.
 */
function applyUniformScale(doc: Document, factor: number): void {
  for (const scene of doc.getRoot().listScenes()) {
    const children = scene.listChildren();
    const existing = children.length === 1 && children[0].getName() === SCALE_ROOT_NAME ? children[0] : null;
    if (existing) {
      const [x, y, z] = existing.getScale();
      existing.setScale([x * factor, y * factor, z * factor]);
      continue;
    }
    const wrapper = doc.createNode(SCALE_ROOT_NAME).setScale([factor, factor, factor]);
    for (const child of children) {
      scene.removeChild(child);
      wrapper.addChild(child);
    }
    scene.addChild(wrapper);
  }
}

export async function rescaleModel(glb: Buffer, scale: RescaleTarget): Promise<ProcessedModel> {
  const container = parseContainer(glb);
  const external = listExternalUris(container.json);
  if (external.length > 0) {
    throw new MediaError('external_uri_refused', 'Rescale expects a self-contained GLB', { uris: external.slice(0, 5) });
  }
  const doc = await readDocument(container, new Map());
  const factor = scaleFactor(measureDimensions(displayScene(doc)), scale);
  applyUniformScale(doc, factor);
  return finish(doc, DEFAULT_MODEL_CAPS, declaredCompression(container.json));
}
