/**
 * Key rules shared by both adapters, so a key that works on disk also works on S3 and the reverse.
 * Segments may not start with `.`: that rules out `.`/`..` and leaves dot-names free for the disk
 * store's own temp and metadata files, which therefore can never collide with a real key.
 */
const MAX_KEY_BYTES = 1024; // S3's limit
const MAX_SEGMENT_BYTES = 200; // leaves room under the usual 255-byte file name limit for `.meta-` names
const CONTROL = /[\u0000-\u001f\u007f]/;

function checkSegments(value: string, what: string, allowEmptyLast: boolean): void {
  if (value.startsWith('/')) throw new Error(`${what} must be relative: ${JSON.stringify(value)}`);
  if (value.includes('\\')) throw new Error(`${what} must not contain a backslash: ${JSON.stringify(value)}`);
  if (CONTROL.test(value)) throw new Error(`${what} must not contain control characters: ${JSON.stringify(value)}`);
  if (Buffer.byteLength(value) > MAX_KEY_BYTES) throw new Error(`${what} is longer than ${MAX_KEY_BYTES} bytes`);
  const segments = value.split('/');
  segments.forEach((segment, i) => {
    if (segment === '') {
      if (allowEmptyLast && i === segments.length - 1) return;
      throw new Error(`${what} has an empty segment: ${JSON.stringify(value)}`);
    }
    if (segment.startsWith('.')) throw new Error(`${what} has a segment starting with ".": ${JSON.stringify(value)}`);
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) {
      throw new Error(`${what} has a segment longer than ${MAX_SEGMENT_BYTES} bytes`);
    }
  });
}

export function assertValidKey(key: string): void {
  if (typeof key !== 'string' || key === '') throw new Error('blob key must be a non-empty string');
  checkSegments(key, 'blob key', false);
}

/** A prefix is a key that may be cut anywhere, e.g. `orgs/org_1/` or `orgs/org_1/img_`. */
export function assertValidPrefix(prefix: string): void {
  if (typeof prefix !== 'string') throw new Error('blob prefix must be a string');
  if (prefix === '') return;
  checkSegments(prefix, 'blob prefix', true);
}

/** deletePrefix('') would wipe the whole store; a bug that produces an empty prefix must not do that. */
export function assertDeletablePrefix(prefix: string): void {
  assertValidPrefix(prefix);
  if (prefix === '') throw new Error('refusing to delete with an empty prefix (that would delete every object)');
}

export function publicUrlFor(base: string, key: string): string {
  assertValidKey(key);
  return `${base}/files/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/** Private objects (uploads, originals) are read through `/v1/files/`, which checks the caller's organization. */
export function privateUrlFor(base: string, key: string): string {
  assertValidKey(key);
  return `${base}/v1/files/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/** The URLs of a store's objects, the same for every backend: Plinth serves them under its own public base. */
export abstract class ServedUnderBase {
  constructor(protected readonly publicBase: string) {}

  publicUrl(key: string): string {
    return publicUrlFor(this.publicBase, key);
  }

  privateUrl(key: string): string {
    return privateUrlFor(this.publicBase, key);
  }
}

export function toBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk);
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError('blob streams must yield bytes or strings');
}
