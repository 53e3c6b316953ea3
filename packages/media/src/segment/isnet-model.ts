/**
 * Where the IS-Net weights come from. Either an explicit ONNX file, or the optional package
 * `@imgly/background-removal-data` (AGPL-3.0, so Plinth never depends on it: it is installed on
 * request). That package ships each file split into 4 MiB chunks named by their SHA-256, listed in
 * `dist/resources.json`; the chunks are reassembled in memory and every hash and size checked, so a
 * truncated or tampered install fails loudly instead of producing nonsense masks.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { MediaError } from '../errors.js';

export const MODEL_PACKAGE = '@imgly/background-removal-data';
export type ModelVariant = 'small' | 'medium';

export interface ModelSource {
  /** 'file' when read from an explicit path, 'package' when reassembled from the optional package */
  kind: 'file' | 'package';
  /** path of the file, or `@imgly/background-removal-data/<variant>` */
  name: string;
  /** the package's resource key, or the file's path */
  location: string;
}

interface ResourceEntry {
  chunks: { hash: string; offsets: [number, number] }[];
  size: number;
}

/** Directory of the optional package's `dist/`, or null when it is not installed. */
export function modelPackageDir(): string | null {
  try {
    const require = createRequire(import.meta.url);
    return path.join(path.dirname(require.resolve(`${MODEL_PACKAGE}/package.json`)), 'dist');
  } catch {
    return null;
  }
}

/** The model to use: an explicit path wins; otherwise the package's variant when it is installed. */
export function locateModel(explicitPath: string | null | undefined, variant: ModelVariant): ModelSource | null {
  if (explicitPath) return { kind: 'file', name: path.basename(explicitPath), location: explicitPath };
  const dir = modelPackageDir();
  if (!dir) return null;
  return { kind: 'package', name: `${MODEL_PACKAGE}/${variant}`, location: `/models/${variant}` };
}

export async function loadModelBytes(source: ModelSource): Promise<Uint8Array> {
  if (source.kind === 'file') {
    try {
      return await readFile(source.location);
    } catch (err) {
      throw new MediaError('tool_missing', `The segmenter model ${source.location} cannot be read.`, {
        cause: (err as Error).message,
      });
    }
  }
  const dir = modelPackageDir();
  if (!dir) throw new MediaError('tool_missing', `${MODEL_PACKAGE} is not installed.`);
  return reassemble(dir, source.location);
}

/** Concatenates the chunks of one resource, verifying each chunk's SHA-256 and the total size. */
export async function reassemble(distDir: string, key: string): Promise<Uint8Array> {
  let resources: Record<string, ResourceEntry>;
  try {
    resources = JSON.parse(await readFile(path.join(distDir, 'resources.json'), 'utf8')) as Record<string, ResourceEntry>;
  } catch (err) {
    throw new MediaError('tool_missing', `${MODEL_PACKAGE} has no readable resources.json.`, {
      cause: (err as Error).message,
    });
  }
  const entry = resources[key];
  if (!entry) throw new MediaError('tool_missing', `${MODEL_PACKAGE} does not list ${key}.`);
  const out = new Uint8Array(entry.size);
  for (const chunk of entry.chunks) {
    const [start, end] = chunk.offsets;
    if (!/^[0-9a-f]{64}$/.test(chunk.hash) || start < 0 || end > entry.size || end <= start) {
      throw new MediaError('tool_failed', `${MODEL_PACKAGE} lists an invalid chunk for ${key}.`, { chunk: chunk.hash });
    }
    const bytes = await readFile(path.join(distDir, chunk.hash)).catch(() => null);
    if (!bytes || bytes.length !== end - start) {
      throw new MediaError('tool_failed', `A chunk of ${key} is missing or has the wrong size.`, { chunk: chunk.hash });
    }
    if (createHash('sha256').update(bytes).digest('hex') !== chunk.hash) {
      throw new MediaError('tool_failed', `A chunk of ${key} does not match its hash.`, { chunk: chunk.hash });
    }
    out.set(bytes, start);
  }
  const covered = entry.chunks.reduce((sum, c) => sum + (c.offsets[1] - c.offsets[0]), 0);
  if (covered !== entry.size) throw new MediaError('tool_failed', `The chunks of ${key} do not add up to its size.`);
  return out;
}
