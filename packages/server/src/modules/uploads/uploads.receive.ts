import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../core/errors.js';

/** Enough leading bytes for any container sniff (an ISO-BMFF ftyp box lists its brands in the first 256). */
const HEAD_BYTES = 256;

export interface ReceivedFile {
  path: string;
  bytes: number;
  sha256: string;
  /** the first bytes, to choose a decoder */
  head: Buffer;
  remove(): Promise<void>;
}

/** The rest of an oversized body is never read, so the connection closes after the answer. */
/** Where uploads wait for their check, under the data dir: never a shared system temp directory. */
export const uploadTempDir = (dataDir: string) => join(dataDir, 'tmp', 'uploads');

/** Temp files a crashed process left behind (a live upload is never this old); returns how many went. */
export async function removeStaleTempFiles(dir: string, olderThanMs: number, now = Date.now()): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names.filter((n) => n.endsWith('.part'))) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info && now - info.mtimeMs > olderThanMs) {
      await rm(path, { force: true });
      removed++;
    }
  }
  return removed;
}

export const tooLarge = (limit: number) =>
  new AppError('payload_too_large', 'The file is larger than uploads accept.', { limit_bytes: limit }, { Connection: 'close' });

/**
 * Streams a body to a private temp file, hashing and counting as it goes and stopping at `limit`
 * bytes: memory stays at one chunk whatever is sent. The decode check then reads the file, not RAM.
 */
export async function receiveToTemp(body: Readable, dir: string, limit: number): Promise<ReceivedFile> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${randomBytes(16).toString('hex')}.part`);
  const remove = () => rm(path, { force: true });
  const hash = createHash('sha256');
  let bytes = 0;
  let head = Buffer.alloc(0);
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > limit) {
        // Stop reading without destroying the request: the client still gets its 413, then the connection closes.
        body.unpipe(meter);
        return done(tooLarge(limit));
      }
      if (head.length < HEAD_BYTES) head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
      hash.update(chunk);
      done(null, chunk);
    },
  });
  body.on('error', (err) => meter.destroy(err));
  body.pipe(meter);
  try {
    await pipeline(meter, createWriteStream(path, { mode: 0o600 }));
  } catch (err) {
    await remove();
    throw err;
  }
  return { path, bytes, sha256: hash.digest('hex'), head, remove };
}
