// The media engine's TypeScript test support (synthetic captures, scoring against references), for benches that
// run on the built code: bundled once into a temporary module inside the repository, so its packages resolve from
// node_modules, and imported. `remove()` deletes the bundle.
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './plinth.mjs';

export async function importTestSupport(source) {
  const work = mkdtempSync(join(ROOT, 'node_modules', '.plinth-support-'));
  const remove = () => rmSync(work, { recursive: true, force: true });
  try {
    const entry = join(work, 'support.mjs');
    await build({ entryPoints: [join(ROOT, source)], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outfile: entry, logLevel: 'warning' });
    return { module: await import(pathToFileURL(entry).href), remove };
  } catch (err) {
    remove();
    throw err;
  }
}
