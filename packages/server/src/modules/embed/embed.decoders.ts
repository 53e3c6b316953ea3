import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DEFAULT_BUNDLE_PATH } from './embed.bundle.js';

/**
 * The mesh decoders the embed's model-viewer loads (packages/embed/build.mjs puts them beside the bundle), so a
 * model stored with Draco or meshopt compression shows with no request to a third party. Only these files.
 */
const DECODERS: Record<string, string> = {
  'draco/draco_wasm_wrapper.js': 'text/javascript; charset=utf-8',
  'draco/draco_decoder.wasm': 'application/wasm',
  'draco/draco_decoder.js': 'text/javascript; charset=utf-8',
  'meshopt.js': 'text/javascript; charset=utf-8',
};

export interface DecoderFile {
  body: Buffer;
  contentType: string;
  etag: string;
}

export class EmbedDecoders {
  private readonly cache = new Map<string, Promise<DecoderFile | null>>();
  private readonly dir: string;

  constructor(bundlePath: string = DEFAULT_BUNDLE_PATH) {
    this.dir = join(dirname(bundlePath), 'decoders');
  }

  /** Null for a name not in the list, or a file the embed build has not written. */
  load(name: string): Promise<DecoderFile | null> {
    const contentType = DECODERS[name];
    if (!contentType) return Promise.resolve(null);
    let file = this.cache.get(name);
    if (!file) {
      file = readFile(join(this.dir, name)).then(
        (body) => ({ body, contentType, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }),
        () => null,
      );
      // A missing file is looked for again next time (the embed may be built while the server runs).
      file.then((found) => found ?? this.cache.delete(name));
      this.cache.set(name, file);
    }
    return file;
  }
}
