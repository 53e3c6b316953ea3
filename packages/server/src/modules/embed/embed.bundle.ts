import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/**
 * packages/embed sits beside packages/server, and this file is as deep in src/ as in dist/, so the
 * same relative path finds the built bundle from `tsx`/vitest and from the compiled server.
 */
export const DEFAULT_BUNDLE_PATH = fileURLToPath(new URL('../../../../embed/dist/embed.js', import.meta.url));
const EMBED_PACKAGE_JSON = new URL('../../../../embed/package.json', import.meta.url);

/** The embed's own version names its immutable URL, so a release with a new version busts every cache. */
export function embedVersion(): string {
  try {
    return (JSON.parse(readFileSync(EMBED_PACKAGE_JSON, 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

export interface LoadedBundle {
  body: Buffer;
  etag: string;
  gzipped(): Promise<Buffer>;
}

/**
 * The bundle is read once and kept (about 1 MB), and read again only when the file changes, so
 * `npm run build -w packages/embed` on a running server takes effect without a restart.
 * Returns null while the bundle has not been built.
 */
export class EmbedBundle {
  private current: { mtimeMs: number; size: number; bundle: Promise<LoadedBundle> } | null = null;

  constructor(readonly path: string = DEFAULT_BUNDLE_PATH) {}

  async load(): Promise<LoadedBundle | null> {
    const info = await stat(this.path).catch(() => null);
    if (!info?.isFile()) {
      this.current = null;
      return null;
    }
    if (!this.current || this.current.mtimeMs !== info.mtimeMs || this.current.size !== info.size) {
      const bundle = readBundle(this.path);
      this.current = { mtimeMs: info.mtimeMs, size: info.size, bundle };
      // A failed read must not stick: the next request tries the file again.
      bundle.catch(() => {
        if (this.current?.bundle === bundle) this.current = null;
      });
    }
    return this.current.bundle;
  }
}

async function readBundle(path: string): Promise<LoadedBundle> {
  const body = await readFile(path);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  let compressed: Promise<Buffer> | null = null;
  return {
    body,
    etag,
    // Compressed once, on the first request that accepts it: the bundle is mostly three.js and
    // shrinks to about a quarter, which matters on a shopper's phone.
    gzipped: () => (compressed ??= gzipAsync(body, { level: 9 })),
  };
}
