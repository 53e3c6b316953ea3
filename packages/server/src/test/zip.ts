import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './env.js';

export interface OpenedZip {
  /** entry names, in archive order */
  names: string[];
  read(name: string): Buffer;
  /** manifest.json, parsed */
  manifest: any;
}

/**
 * Opens an archive with the standard unzip tool, as a user would: it must pass `unzip -t`. Entries are
 * read out at once, so nothing is left on disk.
 */
export function openZip(zip: Buffer): OpenedZip {
  const dir = tempDir('plinth-zip-');
  try {
    const file = join(dir.path, 'archive.zip');
    writeFileSync(file, zip);
    execFileSync('unzip', ['-tq', file]);
    const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n');
    const out = join(dir.path, 'out');
    execFileSync('unzip', ['-q', file, '-d', out]);
    const files = new Map(names.filter((n) => !n.endsWith('/')).map((n) => [n, readFileSync(join(out, n))]));
    const read = (name: string) => {
      const data = files.get(name);
      if (!data) throw new Error(`no entry ${name} in the archive`);
      return data;
    };
    return { names, read, manifest: files.has('manifest.json') ? JSON.parse(read('manifest.json').toString('utf8')) : null };
  } finally {
    dir.remove();
  }
}
