import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { draco, meshopt } from '@gltf-transform/functions';
import draco3d from 'draco3dgltf';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import type { GltfJson } from './model-container.js';
import { quietLogger } from './model-normalize.js';
import type { ModelDimensions } from './model-pipeline.js';
import { countTriangles, displayScene, measureDimensions } from './model-stats.js';

/** The mesh compression a model arrived with, kept on the stored GLB (the viewer decodes both). */
export type MeshCompression = 'draco' | 'meshopt';

const EXTENSION: Record<MeshCompression, string> = {
  draco: 'KHR_draco_mesh_compression',
  meshopt: 'EXT_meshopt_compression',
};

/** Draco when the file uses it (it is the one a viewer must decode first), else meshopt, else none. */
export function declaredCompression(json: GltfJson): MeshCompression | null {
  const used: unknown[] = Array.isArray(json.extensionsUsed) ? json.extensionsUsed : [];
  if (used.includes(EXTENSION.draco)) return 'draco';
  if (used.includes(EXTENSION.meshopt)) return 'meshopt';
  return null;
}

let codecIO: Promise<NodeIO> | null = null;

/** A NodeIO that reads and writes Draco and meshopt; its encoders (WebAssembly) load on the first call only. */
export function meshCodecIO(): Promise<NodeIO> {
  codecIO ??= (async () => {
    const [encoder, decoder] = await Promise.all([draco3d.createEncoderModule(), draco3d.createDecoderModule(), MeshoptEncoder.ready, MeshoptDecoder.ready]);
    return new NodeIO().setLogger(quietLogger).registerExtensions(ALL_EXTENSIONS).registerDependencies({
      'draco3d.encoder': encoder,
      'draco3d.decoder': decoder,
      'meshopt.encoder': MeshoptEncoder,
      'meshopt.decoder': MeshoptDecoder,
    });
  })();
  return codecIO;
}

// Both methods quantise positions (Draco to 14 bits, meshopt to 14 or 16): far below this.
const SIZE_TOLERANCE = 0.001;

/**
 * `glb` (validated, uncompressed) encoded again with `compression`, then decoded once more and compared with
 * the uncompressed model: the same triangles and the same size within 0.1%. Null when the encoder refuses the
 * model or the check fails; the caller then stores the uncompressed GLB, which every viewer reads.
 */
export async function compressGlb(
  glb: Buffer,
  compression: MeshCompression,
  expected: { dimensions: ModelDimensions; triangles: number },
): Promise<Buffer | null> {
  const io = await meshCodecIO();
  let out: Buffer;
  try {
    const doc = (await io.readBinary(glb)).setLogger(quietLogger);
    await doc.transform(compression === 'draco' ? draco({ method: 'edgebreaker' }) : meshopt({ encoder: MeshoptEncoder, level: 'high' }));
    const bytes = await io.writeBinary(doc);
    out = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch {
    return null;
  }
  const decoded = await io.readBinary(out);
  const after = displayScene(decoded);
  if (countTriangles(after) !== expected.triangles) return null;
  const a = expected.dimensions;
  const b = measureDimensions(after);
  for (const axis of ['width', 'height', 'depth'] as const) {
    if (Math.abs(b[axis] - a[axis]) > SIZE_TOLERANCE * Math.max(a.width, a.height, a.depth)) return null;
  }
  if (!decoded.getRoot().listExtensionsUsed().some((e) => e.extensionName === EXTENSION[compression])) return null;
  return out;
}
