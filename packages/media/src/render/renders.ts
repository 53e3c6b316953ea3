import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type BrowserServer, type Route } from 'playwright-core';
import {
  MODEL_PATH,
  PAGE_PATH,
  RENDER_ORIGIN,
  THREE_PREFIX,
  renderPageHtml,
  type PageLoadArgs,
  type PageLoadResult,
} from './renders-page.js';

export interface RenderOptions {
  chromiumPath: string;
  /** Number of views at equal azimuth steps, starting at 0° (front). Default 8. */
  views?: number;
  /** Square image edge in pixels. Default 2048. */
  size?: number;
  /** Camera elevation above the model's centre, in degrees. Default 15. */
  elevationDeg?: number;
  /** Whole call, launch included. Default 120000. */
  timeoutMs?: number;
  /** Studio environment lighting, as the embed's viewer uses: for a poster that must look like the live model. Default false. */
  environment?: boolean;
}

/**
 * Flags for a GPU-less, network-less host. WebGL comes from SwiftShader (software
 * Vulkan behind ANGLE); recent Chromium refuses to fall back to it without
 * --enable-unsafe-swiftshader. Playwright adds its own fresh --user-data-dir.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const FOV_DEG = 30;
const FILL = 0.85;
// SwiftShader's largest texture/viewport is 8192; beyond that WebGL silently clamps.
const MAX_SIZE = 8192;
const MAX_VIEWS = 360;
const CLOSE_GRACE_MS = 5_000;
const PNG_DATA_URL = 'data:image/png;base64,';

interface Resolved {
  chromiumPath: string;
  views: number;
  size: number;
  elevationDeg: number;
  timeoutMs: number;
  environment: boolean;
}

function resolveOptions(opts: RenderOptions): Resolved {
  const r: Resolved = {
    chromiumPath: opts.chromiumPath,
    views: opts.views ?? 8,
    size: opts.size ?? 2048,
    elevationDeg: opts.elevationDeg ?? 15,
    timeoutMs: opts.timeoutMs ?? 120_000,
    environment: opts.environment === true,
  };
  if (!r.chromiumPath) throw new Error('renderTurntable: chromiumPath is required');
  if (!Number.isInteger(r.views) || r.views < 1 || r.views > MAX_VIEWS) {
    throw new Error(`renderTurntable: views must be an integer in 1..${MAX_VIEWS}`);
  }
  if (!Number.isInteger(r.size) || r.size < 16 || r.size > MAX_SIZE) {
    throw new Error(`renderTurntable: size must be an integer in 16..${MAX_SIZE}`);
  }
  // At ±90° the camera's up vector is parallel to the view direction.
  if (!Number.isFinite(r.elevationDeg) || Math.abs(r.elevationDeg) >= 90) {
    throw new Error('renderTurntable: elevationDeg must be within (-90, 90)');
  }
  if (!Number.isFinite(r.timeoutMs) || r.timeoutMs <= 0) throw new Error('renderTurntable: timeoutMs must be positive');
  return r;
}

// The `three` package root: resolve() lands on build/three.cjs (the require
// condition), one level below the root.
const threeRoot = path.resolve(path.dirname(createRequire(import.meta.url).resolve('three')), '..');
// A handful of modules (~2 MB) read on every render otherwise; they never change.
const threeFiles = new Map<string, Promise<Buffer>>();

function readThreeFile(rel: string): Promise<Buffer> | null {
  const file = path.resolve(threeRoot, rel);
  // Only .js (and Draco's .wasm decoder) under the package: the page cannot read anything else from disk.
  if (!file.startsWith(threeRoot + path.sep) || !/\.(js|wasm)$/.test(file)) return null;
  let cached = threeFiles.get(file);
  if (!cached) {
    cached = readFile(file);
    cached.catch(() => threeFiles.delete(file));
    threeFiles.set(file, cached);
  }
  return cached;
}

async function serve(route: Route, glb: Buffer): Promise<void> {
  const url = new URL(route.request().url());
  // Nothing should leave the page; refuse rather than let Chromium try the network.
  if (url.origin !== RENDER_ORIGIN) return route.abort('blockedbyclient');
  const headers = { 'cache-control': 'no-store' };
  if (url.pathname === PAGE_PATH) {
    return route.fulfill({ status: 200, headers, contentType: 'text/html; charset=utf-8', body: renderPageHtml() });
  }
  if (url.pathname === MODEL_PATH) {
    return route.fulfill({ status: 200, headers, contentType: 'model/gltf-binary', body: glb });
  }
  if (url.pathname.startsWith(THREE_PREFIX)) {
    const rel = decodeURIComponent(url.pathname.slice(THREE_PREFIX.length));
    const body = await readThreeFile(rel)?.catch(() => null);
    const contentType = rel.endsWith('.wasm') ? 'application/wasm' : 'text/javascript; charset=utf-8';
    if (body) return route.fulfill({ status: 200, headers, contentType, body });
  }
  return route.fulfill({ status: 404, headers, body: 'not found' });
}

interface PlinthWindow {
  plinthPage?: {
    load(args: PageLoadArgs): Promise<PageLoadResult>;
    render(azimuthDeg: number, elevationDeg: number): string;
  };
}

async function drawViews(server: BrowserServer, glb: Buffer, o: Resolved): Promise<Buffer[]> {
  const browser = await chromium.connect(server.wsEndpoint());
  try {
    const context = await browser.newContext({
      viewport: { width: 64, height: 64 }, // the canvas is never laid out; only its buffer is read
      deviceScaleFactor: 1,
      serviceWorkers: 'block',
    });
    const page = await context.newPage();
    // Script errors before window.plinthPage exists (a module failing to import)
    // surface nowhere else; keep them for the error message.
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(msg.text());
    });
    // If answering fails, abort so the request does not hang; if the browser is
    // going away (timeout, crash) that fails too, and the page calls report it.
    await page.route('**/*', (route) => serve(route, glb).catch(() => route.abort().catch(() => undefined)));
    await page.goto(RENDER_ORIGIN + PAGE_PATH, { waitUntil: 'load', timeout: o.timeoutMs });
    const ready = await page.evaluate(() => Boolean((window as unknown as PlinthWindow).plinthPage));
    if (!ready) throw new Error(`render page failed to start: ${pageErrors.join('; ') || 'unknown error'}`);

    const args: PageLoadArgs = { size: o.size, fovDeg: FOV_DEG, fill: FILL, environment: o.environment };
    try {
      await page.evaluate((a) => (window as unknown as PlinthWindow).plinthPage!.load(a), args);
    } catch (err) {
      throw new Error(cleanEvaluateError(err));
    }

    const pngs: Buffer[] = [];
    for (let i = 0; i < o.views; i++) {
      const azimuthDeg = (360 * i) / o.views;
      // One view per round trip bounds each base64 string to a single PNG.
      const dataUrl = await page.evaluate(
        ([az, el]) => (window as unknown as PlinthWindow).plinthPage!.render(az, el),
        [azimuthDeg, o.elevationDeg] as const,
      );
      if (!dataUrl.startsWith(PNG_DATA_URL)) throw new Error(`view ${i} did not produce a PNG`);
      pngs.push(Buffer.from(dataUrl.slice(PNG_DATA_URL.length), 'base64'));
    }
    return pngs;
  } finally {
    await browser.close().catch(() => undefined);
  }
}

// Playwright wraps in-page exceptions as "page.evaluate: Error: <message>\n    at …";
// callers want the message the page threw, not the plumbing.
function cleanEvaluateError(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const firstLine = msg.split('\n')[0] ?? msg;
  return firstLine.replace(/^page\.evaluate:\s*/, '').replace(/^Error:\s*/, '');
}

async function shutdown(server: BrowserServer, force: boolean): Promise<void> {
  const proc = server.process();
  const exited = () => proc.exitCode !== null || proc.signalCode !== null;
  if (!force) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      server.close().catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS))),
    ]);
    clearTimeout(timer);
  }
  if (!exited()) await server.kill().catch(() => undefined);
}

/**
 * Draws a GLB in headless Chromium at `views` equal azimuth steps on a transparent
 * background. Returns one size×size RGBA PNG per view, in azimuth order from 0°
 * (camera on +z looking down -z at the model's front) through 90° (camera on +x).
 * The camera distance is fixed by the model's bounding sphere, so all views share
 * one scale and the sphere spans ~85% of the frame.
 */
export async function renderTurntable(glb: Buffer, opts: RenderOptions): Promise<Buffer[]> {
  const o = resolveOptions(opts);
  const started = Date.now();
  let server: BrowserServer;
  try {
    server = await chromium.launchServer({
      executablePath: o.chromiumPath,
      headless: true,
      args: [...CHROMIUM_ARGS],
      timeout: o.timeoutMs,
      // The server process owns signal handling; Playwright still kills its
      // browsers when Node exits.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (err) {
    throw new Error(`Chromium failed to launch (${o.chromiumPath}): ${(err as Error).message.split('\n')[0]}`);
  }
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        timedOut = true;
        reject(new Error(`renderTurntable timed out after ${o.timeoutMs} ms`));
      },
      Math.max(0, o.timeoutMs - (Date.now() - started)),
    );
  });
  try {
    return await Promise.race([drawViews(server, glb, o), deadline]);
  } finally {
    clearTimeout(timer);
    // On timeout the page may be stuck inside a draw call; don't wait on it.
    await shutdown(server, timedOut);
  }
}
