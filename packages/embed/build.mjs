// Builds dist/embed.js: one ES module with model-viewer and three.js inside, so a shop adds a single
// <script type="module">. Then measures the embed's own code alone (those libraries left external),
// since that is the part this package controls and keeps small.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const outfile = join(here, 'dist', 'embed.js');
const OWN_CODE_BUDGET_GZIP = 10 * 1024;

// Said plainly here rather than as a resolver error deep in esbuild's output.
for (const dependency of ['@google/model-viewer', 'three']) {
  try {
    import.meta.resolve(dependency);
  } catch {
    console.error(
      `embed: ${dependency} is not installed, so dist/embed.js cannot be built.\n` +
        '       It must be a dependency of packages/embed: npm install -w packages/embed @google/model-viewer@^4.4.0 three@^0.183.2',
    );
    process.exit(1);
  }
}

const common = {
  absWorkingDir: here,
  entryPoints: ['src/index.ts'],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  // Browsers with WebGL 2 and custom elements, which model-viewer needs anyway.
  target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
  minify: true,
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
};

const full = await build({ ...common, write: false, metafile: true, legalComments: 'eof' });
const bundle = full.outputFiles[0].contents;
mkdirSync(dirname(outfile), { recursive: true });
writeFileSync(outfile, bundle);

// The mesh decoders model-viewer loads at run time, served by the API beside the bundle (src/features/decoders.ts):
// Draco's WebAssembly decoder (Apache-2.0) as the bundled three.js release ships it for its DRACOLoader, and an
// empty script whose load turns on the meshopt decoder already inside the bundle.
const dracoSource = join(dirname(createRequire(import.meta.url).resolve('three')), '..', 'examples/jsm/libs/draco/gltf');
const decoders = join(here, 'dist', 'decoders');
mkdirSync(join(decoders, 'draco'), { recursive: true });
for (const file of ['draco_wasm_wrapper.js', 'draco_decoder.wasm', 'draco_decoder.js']) copyFileSync(join(dracoSource, file), join(decoders, 'draco', file));
copyFileSync(join(dracoSource, '..', 'README.md'), join(decoders, 'draco', 'README.md'));
writeFileSync(join(decoders, 'meshopt.js'), '// Plinth: model-viewer enables its bundled meshopt decoder once this script has loaded.\n');

const own = await build({
  ...common,
  write: false,
  legalComments: 'none',
  // Libraries are measured with the bundle, not here: uqr (the desktop QR code) included.
  external: ['@google/model-viewer', 'three', 'three/*', 'lit', 'lit/*', '@lit/*', '@monogrid/*', 'uqr'],
});
const ownCode = own.outputFiles[0].contents;

const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
const sizes = (bytes) => `${kb(bytes.length).padStart(9)} raw, ${kb(gzipSync(bytes, { level: 9 }).length).padStart(8)} gzipped`;
const ownGzip = gzipSync(ownCode, { level: 9 }).length;

// The largest inputs, so a jump in size points at its cause.
const inputs = Object.entries(full.metafile.outputs[Object.keys(full.metafile.outputs)[0]].inputs)
  .map(([path, info]) => [path.replace(/^.*node_modules\//, ''), info.bytesInOutput])
  .reduce((acc, [path, bytes]) => {
    const pkg = path.startsWith('src/') ? 'embed (src/)' : path.split('/').slice(0, path.startsWith('@') ? 2 : 1).join('/');
    acc.set(pkg, (acc.get(pkg) ?? 0) + bytes);
    return acc;
  }, new Map());

console.log(`embed: dist/embed.js (model-viewer + three bundled)  ${sizes(bundle)}`);
console.log(`embed: own code (model-viewer/three external)         ${sizes(ownCode)}  budget ${kb(OWN_CODE_BUDGET_GZIP)} gzipped: ${ownGzip <= OWN_CODE_BUDGET_GZIP ? 'ok' : 'OVER'}`);
for (const [pkg, bytes] of [...inputs].sort((a, b) => b[1] - a[1]).slice(0, 6)) {
  console.log(`         ${pkg.padEnd(28)} ${kb(bytes).padStart(9)} minified`);
}
writeFileSync(
  join(here, 'dist', 'sizes.json'),
  JSON.stringify({ bundle: bundle.length, bundle_gzip: gzipSync(bundle, { level: 9 }).length, own: ownCode.length, own_gzip: ownGzip }, null, 2) + '\n',
);
