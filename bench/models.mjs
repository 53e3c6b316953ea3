// Imports ten glTF files of the kinds other tools write (Draco, meshopt, quantized, textured PBR, vertex colours,
// transmission, skinned, several primitives, a node hierarchy in centimetres, a large scan) through the public
// API, the way a developer would: POST /v1/uploads, POST /v1/products {model_path}, wait for model_status ready.
// Each file is built with a known true size (bench/models-lib/variety.mjs). For each it checks the dimensions the
// API reports and those of the stored GLB (downloaded and measured here, independently) against the truth, and
// the size of the USDZ's geometry; it prints the time from POST /v1/products to ready, triangles in and out, and sizes.
// Goal: every model ready, dimensions within 0.1%, a USDZ each. Exits 1 when a model misses it.
//
//   npm run build && node bench/models.mjs       (BENCH_MODELS_LARGE_TRIANGLES, default 500000; BENCH_MODELS to pick kinds)
//
// Each import includes its free poster render in headless Chromium; BENCH_MODELS_NO_POSTER=1 starts Plinth without
// Chromium, to time the model work alone.
import { startPlinth } from './lib/plinth.mjs';
import { printEnvironment } from './lib/report.mjs';
import { api } from './products-lib/seed.mjs';
import { drawnTriangles, makeModel, MODEL_KINDS, restPoseSize, sizeError, usdzPointsSize, varietyIO } from './models-lib/variety.mjs';

const TOLERANCE = 0.001;
const TIMEOUT_MS = 10 * 60_000;
const largeTriangles = Number(process.env.BENCH_MODELS_LARGE_TRIANGLES ?? 500_000);
const picked = process.env.BENCH_MODELS ? process.env.BENCH_MODELS.split(',') : MODEL_KINDS.map((k) => k.name);

async function download(url) {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/** Upload, import, wait; returns the product as the API shows it and the milliseconds from import to ready. */
async function importModel(plinth, model) {
  const up = await fetch(`${plinth.url}/v1/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${plinth.keys.secret_key}`, 'content-type': 'model/gltf-binary' },
    body: model.glb,
  });
  if (up.status !== 201) throw new Error(`POST /v1/uploads answered ${up.status}: ${await up.text()}`);
  const { path } = await up.json();
  const started = performance.now();
  const created = await api(plinth, 'POST', '/v1/products', { model_path: path, title: model.name });
  if (created.status !== 202) throw new Error(`POST /v1/products answered ${created.status}: ${created.text}`);
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const got = await api(plinth, 'GET', `/v1/products/${created.json.id}`);
    if (got.status !== 200) throw new Error(`GET /v1/products/${created.json.id} answered ${got.status}: ${got.text}`);
    if (got.json.model_status === 'ready') return { product: got.json, ms: performance.now() - started };
    if (got.json.model_status === 'failed') throw new Error(`import failed: ${JSON.stringify(got.json.error)}`);
    if (Date.now() > deadline) throw new Error(`still ${got.json.model_status} after ${TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const compressionOf = (extensions) => extensions.filter((e) => /compression|quantization/.test(e)).join(' ') || 'none';
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
const pct = (e) => `${(e * 100).toFixed(4)}%`;

printEnvironment();
const noPoster = Boolean(process.env.BENCH_MODELS_NO_POSTER);
const plinth = await startPlinth({
  bootstrap: { org: 'Model variety bench', credits: 1000 },
  // A Chromium that cannot be found: the import skips its poster (and says so in the log).
  env: noPoster ? { PLINTH_CHROMIUM_PATH: 'plinth-bench-no-chromium' } : {},
});
const rows = [];
let failures = 0;
try {
  const io = await varietyIO();
  for (const name of picked) {
    const model = await makeModel(name, { largeTriangles });
    const row = { name, in: compressionOf(model.extensions), trisIn: model.triangles, glbIn: model.glb.byteLength };
    try {
      const { product, ms } = await importModel(plinth, model);
      const { width, height, depth } = product.model.dimensions;
      const glb = await download(product.model_url);
      const stored = await io.readBinary(glb);
      const usdz = product.model.usdz_url ? await download(product.model.usdz_url) : null;
      Object.assign(row, {
        ms,
        out: compressionOf(stored.getRoot().listExtensionsUsed().map((e) => e.extensionName)),
        trisOut: product.model.triangles,
        trisStored: drawnTriangles(stored),
        glbOut: glb.byteLength,
        usdz: usdz?.byteLength ?? 0,
        apiError: sizeError([width, height, depth], model.trueSize),
        storedError: sizeError(restPoseSize(stored), model.trueSize),
        usdzError: usdz ? sizeError(usdzPointsSize(usdz), model.trueSize) : undefined,
      });
      row.ok = [row.apiError, row.storedError, row.usdzError].every((e) => e <= TOLERANCE) && usdz?.subarray(0, 2).toString('latin1') === 'PK';
    } catch (err) {
      row.ok = false;
      row.failure = err.message;
    }
    if (!row.ok) failures++;
    rows.push(row);
    console.log(`${name}: ${row.ok ? 'ok' : `FAILED ${row.failure ?? ''}`}`);
  }
} finally {
  await plinth.stop();
}

console.log(
  `\nModel imports through the API (large scan: ${largeTriangles.toLocaleString('en-US')} triangles requested), one at a time, ` +
    `${noPoster ? 'without' : 'with'} the poster render\n`,
);
const header = ['model', 'ms to ready', 'triangles in', 'triangles out', 'GLB in', 'GLB stored', 'compression in → stored', 'USDZ', 'size error (API)', 'size error (stored GLB)', 'size error (USDZ)', 'result'];
const table = rows.map((r) => [
  r.name,
  r.ms === undefined ? '—' : Math.round(r.ms).toLocaleString('en-US'),
  r.trisIn.toLocaleString('en-US'),
  r.trisOut === undefined ? '—' : `${r.trisOut.toLocaleString('en-US')}${r.trisStored !== r.trisOut ? ` (stored ${r.trisStored})` : ''}`,
  kb(r.glbIn),
  r.glbOut === undefined ? '—' : kb(r.glbOut),
  `${r.in} → ${r.out ?? '—'}`,
  r.usdz ? kb(r.usdz) : '—',
  r.apiError === undefined ? '—' : pct(r.apiError),
  r.storedError === undefined ? '—' : pct(r.storedError),
  r.usdzError === undefined ? '—' : pct(r.usdzError),
  r.ok ? 'ok' : `FAILED${r.failure ? `: ${r.failure}` : ''}`,
]);
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map(() => '---').join('|')}|`);
for (const cells of table) console.log(`| ${cells.join(' | ')} |`);
console.log(`\n${rows.length - failures} of ${rows.length} within ${pct(TOLERANCE)} with a USDZ (goal: all)`);
process.exitCode = failures ? 1 : 0;
