import { randomUUID } from 'node:crypto';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Buffers from this size up cross between the server and a sandbox child as files in a private temp
 * directory rather than inside the IPC message: Node's IPC serialises through a pipe in small writes,
 * which measured about 37 ms per MB on the two-core target, while a write and a read of the same bytes
 * take a few milliseconds (bench/sandbox.mjs).
 */
export const FILE_TRANSFER_BYTES = 256 * 1024;

interface FileRef {
  $transferFile: string;
}

const isFileRef = (v: unknown): v is FileRef => !!v && typeof v === 'object' && typeof (v as FileRef).$transferFile === 'string';
const isPlain = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

/** Replaces large Buffers in `value` by references to files written under `dir`. */
export async function packLarge(value: unknown, dir: string): Promise<unknown> {
  if (value instanceof Uint8Array) {
    if (value.byteLength < FILE_TRANSFER_BYTES) return value;
    const file = join(dir, randomUUID());
    await writeFile(file, value);
    return { $transferFile: file } satisfies FileRef;
  }
  if (Array.isArray(value)) return Promise.all(value.map((v) => packLarge(v, dir)));
  if (isPlain(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await packLarge(v, dir);
    return out;
  }
  return value;
}

/** Reads back (and deletes) the files packLarge wrote, and turns every Uint8Array into a Buffer. */
export async function unpackLarge(value: unknown): Promise<unknown> {
  if (isFileRef(value)) {
    const data = await readFile(value.$transferFile);
    await unlink(value.$transferFile).catch(() => {});
    return data;
  }
  if (value instanceof Uint8Array) return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (Array.isArray(value)) return Promise.all(value.map(unpackLarge));
  if (isPlain(value)) {
    for (const [k, v] of Object.entries(value)) value[k] = await unpackLarge(v);
  }
  return value;
}
