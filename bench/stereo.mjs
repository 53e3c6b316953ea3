// Multi-view stereo beyond the visual hull, measured: per set, the share of the surface stereo measured, its
// Chamfer distance and F-score at 1 % of the diagonal against the true surface (synthetic sets, hull and
// stereo side by side; the temple against its calibrated hull), the stereo stage's time, the whole posed
// generation's time, and the peak memory; and a contact sheet per set (top row the hull, bottom row stereo).
//
//   node bench/stereo.mjs [--sets=mug,bowl,chair,temple,mug-36-1024-768] [--out=DIR]
//
// A set named product-count-width-height renders that many photos at that size (default 24 at 640 × 480).
// The temple needs ../shared/data/captures (or PLINTH_CAPTURES_DIR) and says it skipped without it. The
// synthetic captures are drawn in headless Chromium (PLINTH_CHROMIUM_PATH, default /usr/bin/chromium).
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importTestSupport } from './lib/test-support.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const sets = arg('sets', 'mug,bowl,chair,temple').split(',');
const outDir = resolve(arg('out', join(tmpdir(), 'plinth-stereo-bench')));
mkdirSync(outDir, { recursive: true });
// The bundle lives elsewhere than its sources: say where the real captures are, as the tests find them.
process.env.PLINTH_CAPTURES_DIR ??= join(root, '..', 'shared', 'data', 'captures');

// The bench drives the media engine's TypeScript test support (the synthetic captures and their scoring).
const support = await importTestSupport('packages/media/src/generate/stereo/stereo-bench.test-support.ts');
try {
  console.log(`stereo bench: ${sets.join(', ')}; contact sheets in ${outDir}`);
  await support.module.benchStereo({ chromiumPath: process.env.PLINTH_CHROMIUM_PATH ?? '/usr/bin/chromium', outDir, sets });
} finally {
  support.remove();
}
// Something the posed generator or the renderer leaves behind keeps the event loop alive after the last
// set; the bench is done.
process.exit(0);
