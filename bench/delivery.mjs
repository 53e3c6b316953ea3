// The delivery step on heavy third-party-style models (bench/delivery-lib/heavy.mjs): for each model, the
// normalisation the import does (model.process_buffer) and then the web, mobile and USDZ deliveries with their
// rendered SSIM check (model.deliver), each model in a process of its own as the media sandbox runs it. Prints
// per model and delivery: triangles and bytes in and out, SSIM, time, and the process's peak resident memory
// (VmHWM; Chromium's renders run in processes of their own and are not counted).
// Goal: the 500k-triangle scan with four 4096 px textures reaches all three deliveries within 60 s and 1.5 GB.
//
//   npm run build && node bench/delivery.mjs          (BENCH_DELIVERY_MODELS=scan,cad to pick models;
//                                                      BENCH_DELIVERY_SHEETS=<dir> writes contact sheets)
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { formatTable } from './export-lib/measure.mjs';
import { printEnvironment } from './lib/report.mjs';
import { HEAVY_MODELS, heavyModel } from './delivery-lib/heavy.mjs';

const GOAL = { model: 'scan', seconds: 60, rssMb: 1536 };
const chromiumPath = process.env.PLINTH_CHROMIUM_PATH || '/usr/bin/chromium';

function peakRssMb() {
  const kb = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return kb ? Number(kb[1]) / 1024 : process.memoryUsage.rss() / 2 ** 20;
}

/** Master and deliveries side by side from four views: one row per file. */
async function contactSheet(dir, name, master, result) {
  const { coldViewRenderer } = await import('@plinth/media');
  const sharp = (await import('sharp')).default;
  const render = coldViewRenderer(chromiumPath);
  const size = 384;
  const rows = [['master', master], ['web', result.web.data], ['mobile', result.mobile.data]];
  const tiles = [];
  for (const [r, [label, glb]] of rows.entries()) {
    const views = await render(Buffer.from(glb), 4, size);
    views.forEach((png, c) => tiles.push({ input: png, left: 120 + c * size, top: r * size }));
    const text = `<svg width="120" height="${size}"><text x="8" y="${size / 2}" font-size="22" font-family="sans-serif">${label}</text></svg>`;
    tiles.push({ input: Buffer.from(text), left: 0, top: r * size });
  }
  const file = join(dir, `${name}.png`);
  await sharp({ create: { width: 120 + 4 * size, height: rows.length * size, channels: 4, background: '#e8e8e8' } }).composite(tiles).png().toFile(file);
  return file;
}

/** One model, in this process: what a sandbox child does for an import. */
async function runOne(name) {
  const { runMediaOp, DEFAULT_DELIVERY_BUDGETS } = await import('@plinth/media');
  const host = { fetchBytes: async () => Promise.reject(new Error('no external resources')), progress: () => undefined };
  const input = await heavyModel(name);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const master = await runMediaOp('model.process_buffer', { data: input, baseUrl: null }, host);
  const t1 = performance.now();
  const result = await runMediaOp('model.deliver', { master: master.glb, budgets: DEFAULT_DELIVERY_BUDGETS, chromiumPath }, host);
  const t2 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  const peak = peakRssMb();
  let sheet = null;
  if (process.env.BENCH_DELIVERY_SHEETS) {
    await mkdir(process.env.BENCH_DELIVERY_SHEETS, { recursive: true });
    sheet = await contactSheet(process.env.BENCH_DELIVERY_SHEETS, name, master.glb, result);
  }
  const file = (f) => ({ bytes: f.bytes, triangles: f.triangles, texturePx: f.maxTexturePx, ssim: f.ssim, passthrough: f.passthrough, overBudget: f.overBudget });
  return {
    name,
    inputBytes: input.byteLength,
    masterBytes: master.glb.byteLength,
    masterTriangles: master.triangles,
    normaliseMs: t1 - t0,
    deliverMs: t2 - t1,
    cpuMs: (cpu.user + cpu.system) / 1000,
    peakRssMb: peak,
    deliveries: { web: file(result.web), mobile: file(result.mobile), usdz: file(result.usdz) },
    warnings: result.warnings.map((w) => w.message),
    sheet,
  };
}

function runChild(name) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), `--one=${name}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop())) : reject(new Error(`${name}: exit ${code}`))));
  });
}

const mb = (n) => (n / 1e6).toFixed(2);
const one = process.argv.find((a) => a.startsWith('--one='))?.slice(6);
if (one) {
  process.stdout.write(JSON.stringify(await runOne(one)) + '\n');
} else {
  printEnvironment();
  try {
    console.log(`chromium: ${execFileSync(chromiumPath, ['--version'], { encoding: 'utf8' }).trim()}`);
  } catch {
    console.log(`chromium: not found at ${chromiumPath}; deliveries over budget stay the master (no fidelity check)`);
  }
  const names = process.env.BENCH_DELIVERY_MODELS ? process.env.BENCH_DELIVERY_MODELS.split(',') : Object.keys(HEAVY_MODELS);
  // CPU seconds are this process's own (Chromium's renders are not in them): a figure a busy machine bends less.
  const rows = [['model / delivery', 'tris in', 'tris out', 'MB in', 'MB out', 'tex px', 'SSIM', 'note', 's (norm + deliver)', 'CPU s', 'peak RSS MB']];
  let met = true;
  for (const name of names) {
    const r = await runChild(name);
    rows.push([`${name} (input ${mb(r.inputBytes)} MB)`, r.masterTriangles, '', mb(r.masterBytes), '', '', '', 'master', `${(r.normaliseMs / 1000).toFixed(1)} + ${(r.deliverMs / 1000).toFixed(1)}`, (r.cpuMs / 1000).toFixed(1), r.peakRssMb.toFixed(0)]);
    for (const [d, f] of Object.entries(r.deliveries)) {
      const note = f.passthrough ? 'passed through' : f.overBudget ? 'over_budget' : 'within budget';
      rows.push([`  ${d}`, r.masterTriangles, f.triangles, mb(r.masterBytes), mb(f.bytes), f.texturePx, f.ssim.toFixed(4), note, '', '', '']);
    }
    for (const w of r.warnings) console.log(`  warning: ${w}`);
    if (r.sheet) console.log(`  contact sheet: ${r.sheet}`);
    if (name === GOAL.model) {
      const seconds = (r.normaliseMs + r.deliverMs) / 1000;
      const ok = seconds <= GOAL.seconds && r.peakRssMb <= GOAL.rssMb;
      met &&= ok;
      console.log(`goal (${GOAL.model}: all three deliveries within ${GOAL.seconds} s and ${GOAL.rssMb} MB): ${seconds.toFixed(1)} s, ${r.peakRssMb.toFixed(0)} MB: ${ok ? 'met' : 'MISSED'}`);
    }
  }
  console.log(formatTable(rows));
  if (!met) process.exitCode = 1;
}
