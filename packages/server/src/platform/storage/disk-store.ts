import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { assertDeletablePrefix, assertValidKey, assertValidPrefix, ServedUnderBase, toBuffer } from './shared.js';
import { BlobNotFoundError, type BlobStore, type StoredObject } from './types.js';

// Keys never have a segment starting with '.', so these names cannot shadow an object.
const TEMP_PREFIX = '.tmp-';
const META_PREFIX = '.meta-';

export function diskRootFromUrl(storageUrl: string): string {
  try {
    return fileURLToPath(storageUrl);
  } catch (err) {
    throw new Error(`STORAGE_URL ${storageUrl} is not a usable file:// URL: ${(err as Error).message}`);
  }
}

const code = (err: unknown) => (err as NodeJS.ErrnoException)?.code;
const isMissing = (err: unknown) => ['ENOENT', 'ENOTDIR', 'EISDIR'].includes(code(err) ?? '');

/** Writes every byte; a single write() may be short. */
async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
  let offset = 0;
  while (offset < buf.length) offset += (await fh.write(buf, offset)).bytesWritten;
}

/** Files under a root directory; content types live in a small `.meta-<name>` file beside the object. */
export class DiskBlobStore extends ServedUnderBase implements BlobStore {
  readonly kind = 'disk' as const;

  readonly root: string;

  constructor(root: string, publicBase: string) {
    super(publicBase);
    // resolve() drops a trailing slash, which prune() relies on when comparing paths.
    this.root = resolve(root);
  }

  private fileFor(key: string): string {
    assertValidKey(key);
    return join(this.root, ...key.split('/'));
  }

  private metaFor(file: string): string {
    return join(dirname(file), META_PREFIX + basename(file));
  }

  async put(key: string, body: Buffer | Readable, opts: { contentType?: string } = {}): Promise<StoredObject> {
    let file: string;
    try {
      file = this.fileFor(key);
    } catch (err) {
      if (body instanceof Readable) body.destroy();
      throw err;
    }
    // Data first: a failed upload then leaves the previous object and its type untouched.
    const bytes = await this.writeAtomic(file, body);
    const contentType = opts.contentType ?? null;
    if (contentType) await this.writeAtomic(this.metaFor(file), Buffer.from(JSON.stringify({ contentType })));
    else
      await unlink(this.metaFor(file)).catch((err) => {
        if (!isMissing(err)) throw err;
      });
    return { bytes, contentType };
  }

  /** Temp file in the target directory, fsync, rename: readers see the old file or the whole new one. */
  private async writeAtomic(file: string, body: Buffer | Readable): Promise<number> {
    const dir = dirname(file);
    const tmp = join(dir, TEMP_PREFIX + randomBytes(8).toString('hex'));
    let fh: FileHandle | undefined;
    let bytes = 0;
    try {
      fh = await this.openTemp(dir, tmp);
      if (Buffer.isBuffer(body)) {
        await writeAll(fh, body);
        bytes = body.length;
      } else {
        for await (const chunk of body) {
          const buf = toBuffer(chunk);
          await writeAll(fh, buf);
          bytes += buf.length;
        }
      }
      await fh.sync();
      await fh.close();
      fh = undefined;
      await rename(tmp, file).catch((err) => {
        if (code(err) === 'EISDIR' || code(err) === 'ENOTEMPTY') throw new Error(`cannot store ${file}: a directory of other objects is in the way`);
        throw err;
      });
    } catch (err) {
      if (body instanceof Readable) body.destroy();
      await fh?.close().catch(() => {});
      await unlink(tmp).catch(() => {});
      throw err;
    }
    await this.syncDir(dir);
    return bytes;
  }

  private async openTemp(dir: string, tmp: string): Promise<FileHandle> {
    // A concurrent delete may prune the directory between mkdir and open, so retry a few times.
    for (let attempt = 0; ; attempt++) {
      try {
        return await open(tmp, 'wx');
      } catch (err) {
        if (code(err) === 'ENOTDIR') throw new Error(`cannot store under ${dir}: an object is in the way of a directory`);
        if (code(err) !== 'ENOENT' || attempt >= 3) throw err;
        await mkdir(dir, { recursive: true }).catch((e) => {
          if (code(e) === 'ENOTDIR' || code(e) === 'EEXIST') throw new Error(`cannot store under ${dir}: an object is in the way of a directory`);
          throw e;
        });
      }
    }
  }

  /** Makes the rename itself survive a power loss; best effort, some filesystems refuse directory fsync. */
  private async syncDir(dir: string): Promise<void> {
    const fh = await open(dir, 'r').catch(() => undefined);
    if (!fh) return;
    await fh.sync().catch(() => {});
    await fh.close().catch(() => {});
  }

  async get(key: string): Promise<Readable> {
    const file = this.fileFor(key);
    let fh: FileHandle;
    try {
      fh = await open(file, 'r');
    } catch (err) {
      if (isMissing(err)) throw new BlobNotFoundError(key);
      throw err;
    }
    // Opening a directory for reading succeeds on Linux; only the first read fails.
    if (!(await fh.stat()).isFile()) {
      await fh.close();
      throw new BlobNotFoundError(key);
    }
    return fh.createReadStream();
  }

  async getBuffer(key: string): Promise<Buffer> {
    try {
      return await readFile(this.fileFor(key));
    } catch (err) {
      if (isMissing(err)) throw new BlobNotFoundError(key);
      throw err;
    }
  }

  async head(key: string): Promise<StoredObject | null> {
    const file = this.fileFor(key);
    const st = await stat(file).catch((err) => (isMissing(err) ? null : Promise.reject(err)));
    if (!st?.isFile()) return null;
    const meta = await readFile(this.metaFor(file), 'utf8').catch((err) => (isMissing(err) ? null : Promise.reject(err)));
    const contentType = meta ? ((JSON.parse(meta) as { contentType?: string }).contentType ?? null) : null;
    return { bytes: st.size, contentType };
  }

  async delete(key: string): Promise<void> {
    const file = this.fileFor(key);
    await this.remove(file);
    await this.prune(dirname(file));
  }

  private async remove(file: string): Promise<void> {
    for (const path of [file, this.metaFor(file)]) {
      await unlink(path).catch((err) => {
        if (!isMissing(err) && code(err) !== 'EPERM') throw err;
      });
    }
  }

  /** Removes directories left empty, up to (not including) the root; stops at the first non-empty one. */
  private async prune(dir: string): Promise<void> {
    while (dir.startsWith(this.root + sep)) {
      try {
        await rmdir(dir);
      } catch {
        return;
      }
      dir = dirname(dir);
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertDeletablePrefix(prefix);
    const keys = await this.list(prefix);
    const dirs = new Set<string>();
    for (const key of keys) {
      const file = this.fileFor(key);
      await this.remove(file);
      dirs.add(dirname(file));
    }
    // Deepest first, so parents are already empty when their turn comes.
    for (const dir of [...dirs].sort((a, b) => b.length - a.length)) await this.prune(dir);
  }

  async list(prefix: string): Promise<string[]> {
    assertValidPrefix(prefix);
    const base = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    const keys: string[] = [];
    const walk = async (rel: string): Promise<void> => {
      const entries = await readdir(join(this.root, rel), { withFileTypes: true }).catch((err) =>
        isMissing(err) ? [] : Promise.reject(err),
      );
      for (const entry of entries) {
        if (entry.name.startsWith('.')) continue;
        const candidate = rel + entry.name;
        if (entry.isDirectory()) {
          const asDir = candidate + '/';
          if (asDir.startsWith(prefix) || prefix.startsWith(asDir)) await walk(asDir);
        } else if (entry.isFile() && candidate.startsWith(prefix)) {
          keys.push(candidate);
        }
      }
    };
    await walk(base);
    return keys.sort();
  }

  async ping(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    const probe = join(this.root, `.ping-${randomBytes(6).toString('hex')}`);
    const fh = await open(probe, 'wx');
    await fh.close();
    await unlink(probe);
  }

  async close(): Promise<void> {}
}
