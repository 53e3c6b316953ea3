import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserServer, type Page, type Route } from 'playwright-core';
import {
  MODEL_PATH,
  PAGE_PATH,
  RENDER_ORIGIN,
  THREE_PREFIX,
  renderPageHtml,
  type PageLoadArgs,
  type PageLoadResult,
} from './renders-page.js';
import { treeMemoryMb } from '../process-group.js';
import { warmUpModel } from './warm-up-model.js';

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

/** One render, its options checked (see renders.ts). */
export interface RenderJob {
  chromiumPath: string;
  views: number;
  size: number;
  elevationDeg: number;
  timeoutMs: number;
  environment: boolean;
  /** Memory the browser may keep between renders, in MB: above it, it is relaunched before the next. */
  maxMemoryMb?: number;
}

/** A browser is relaunched after this many renders, so what it leaks or fragments does not pile up. */
export const RENDERS_PER_BROWSER = 200;

/**
 * Reading the browser's memory walks /proc (every process's stat, then each browser process's smaps_rollup): tens of
 * milliseconds of this process's time, with the next render waiting. After a small model, with the browser well
 * under its limit at the last reading, it is read again only this often; after a model of SMALL_MODEL_BYTES or more,
 * or near the limit, after every render.
 */
const MEMORY_CHECK_MS = 5_000;
const SMALL_MODEL_BYTES = 1 << 20;

const FOV_DEG = 30;
const FILL = 0.85;
const CLOSE_GRACE_MS = 5_000;
const PNG_DATA_URL = 'data:image/png;base64,';

// The `three` package root: resolve() lands on build/three.cjs (the require
// condition), one level below the root.
const requireHere = createRequire(import.meta.url);
const threeRoot = path.resolve(path.dirname(requireHere.resolve('three')), '..');
// A handful of modules (~2 MB) read on every page load otherwise; they never change.
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

interface PlinthWindow {
  plinthPage?: {
    load(args: PageLoadArgs): Promise<PageLoadResult>;
    render(azimuthDeg: number, elevationDeg: number): string;
  };
}

// Playwright wraps in-page exceptions as "page.evaluate: Error: <message>\n    at …";
// callers want the message the page threw, not the plumbing.
function cleanEvaluateError(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const firstLine = msg.split('\n')[0] ?? msg;
  return firstLine.replace(/^page\.evaluate:\s*/, '').replace(/^Error:\s*/, '');
}

/** A launched browser and the one render page kept open in it. */
interface Session {
  chromiumPath: string;
  server: BrowserServer;
  browser: Browser;
  page: Page | null;
  /** the model the page's next request for MODEL_PATH is answered with */
  glb: Buffer;
  /** script errors of the page, for the message when it fails to start */
  pageErrors: string[];
  renders: number;
  dead: boolean;
  /** the browser's memory at its last reading, in MB, and when that was (ms since the epoch) */
  memoryMb: number | null;
  memoryReadAt: number;
}

/**
 * One headless Chromium for every render of this process: launched on first use or by warm() ahead of it, its
 * render page (three.js loaded, WebGL context and compiled shaders kept) reused from one model to the next,
 * relaunched after a crash, after a render that ran out of time, every RENDERS_PER_BROWSER renders and when it
 * holds more memory than a render's `maxMemoryMb` after it (read as MEMORY_CHECK_MS says), closed by close().
 * Renders run one at a time on the one page; callers queue.
 */
export class WarmRenderer {
  private session: Promise<Session> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** browsers launched so far (tests and the bench read it) */
  launches = 0;
  /** renders and warm-ups queued or running */
  private pending = 0;

  constructor(private readonly rendersPerBrowser = RENDERS_PER_BROWSER) {}

  render(glb: Buffer, job: RenderJob): Promise<Buffer[]> {
    return this.enqueue(() => this.renderNow(glb, job));
  }

  /** Runs `task` after the renders queued before it; once the queue is empty, playwright's zones are switched off. */
  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    this.pending++;
    const run = this.queue.then(task);
    this.queue = run.then(
      () => this.settled(),
      () => this.settled(),
    );
    return run;
  }

  private settled(): void {
    if (--this.pending === 0) quietPlaywrightZones();
  }

  /**
   * Pays now what the first render would otherwise pay: the browser's launch, its render page (three.js loaded,
   * the WebGL context made) and a first draw (the studio environment's map built, seconds on SwiftShader, and the
   * common shaders compiled), by drawing a tiny built-in model (see warm-up-model.ts) with `job`'s settings; the
   * pictures are dropped. Queued like a render, so a render asked for meanwhile waits for this browser instead of
   * launching another.
   */
  warm(job: RenderJob): Promise<void> {
    return this.enqueue(async () => {
      await this.renderNow(await warmUpModel(), { ...job, views: 1 });
    });
  }

  /** Process id of the live browser, or null (tests kill it to check the relaunch). */
  async browserPid(): Promise<number | null> {
    const session = await this.session?.catch(() => null);
    return session && !session.dead ? (session.server.process().pid ?? null) : null;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.retire(false);
  }

  private async renderNow(glb: Buffer, job: RenderJob): Promise<Buffer[]> {
    if (this.closed) throw new Error('the renderer is closed');
    const started = Date.now();
    const current = await this.session?.catch(() => null);
    if (!current || current.dead || current.chromiumPath !== job.chromiumPath) {
      await this.retire(false);
      // A close() while the old browser was retiring found no session: a browser launched now would outlive it.
      if (this.closed) throw new Error('the renderer is closed');
      this.session = this.launch(job);
    }
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          timedOut = true;
          reject(new Error(`renderTurntable timed out after ${job.timeoutMs} ms`));
        },
        Math.max(0, job.timeoutMs - (Date.now() - started)),
      );
    });
    const draw = (async () => {
      const session = await this.session!;
      session.renders++;
      return this.drawViews(session, glb, job);
    })();
    try {
      const pngs = await Promise.race([draw, deadline]);
      const session = await this.session!;
      if (session.renders >= this.rendersPerBrowser || this.overMemory(session, glb, job)) await this.retire(false);
      return pngs;
    } catch (err) {
      // On timeout the page may be stuck inside a draw call: the browser goes, the next render gets a new one.
      // Any other failure costs only the page, so a broken model cannot leave state behind for the next.
      if (timedOut) await this.retire(true);
      else await this.dropPage();
      draw.catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether the browser now holds more than the render's memory limit (read from /proc; false where it cannot). */
  private overMemory(session: Session, glb: Buffer, job: RenderJob): boolean {
    const pid = session.server.process().pid;
    if (!job.maxMemoryMb || !pid) return false;
    const roomy = session.memoryMb !== null && session.memoryMb < job.maxMemoryMb / 2;
    if (roomy && glb.byteLength < SMALL_MODEL_BYTES && Date.now() - session.memoryReadAt < MEMORY_CHECK_MS) return false;
    session.memoryMb = treeMemoryMb(pid);
    session.memoryReadAt = Date.now();
    return (session.memoryMb ?? 0) > job.maxMemoryMb;
  }

  private async launch(job: RenderJob): Promise<Session> {
    this.launches++;
    let server: BrowserServer;
    try {
      server = await chromium.launchServer({
        executablePath: job.chromiumPath,
        headless: true,
        args: [...CHROMIUM_ARGS],
        timeout: job.timeoutMs,
        // The server process owns signal handling; Playwright still kills its browsers when Node exits.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (err) {
      throw new Error(`Chromium failed to launch (${job.chromiumPath}): ${(err as Error).message.split('\n')[0]}`);
    }
    const session: Session = { chromiumPath: job.chromiumPath, server, browser: null!, page: null, glb: Buffer.alloc(0), pageErrors: [], renders: 0, dead: false, memoryMb: null, memoryReadAt: 0 };
    // A crashed or killed browser is noticed here, and the next render launches another.
    server.process().once('exit', () => (session.dead = true));
    try {
      session.browser = await chromium.connect(server.wsEndpoint(), { timeout: job.timeoutMs });
    } catch (err) {
      session.dead = true;
      await shutdown(server, true);
      throw err;
    }
    session.browser.on('disconnected', () => (session.dead = true));
    return session;
  }

  private async openPage(session: Session, job: RenderJob): Promise<Page> {
    const context = await session.browser.newContext({
      viewport: { width: 64, height: 64 }, // the canvas is never laid out; only its buffer is read
      deviceScaleFactor: 1,
      serviceWorkers: 'block',
    });
    const page = await context.newPage();
    session.pageErrors = [];
    // Script errors before window.plinthPage exists (a module failing to import) surface nowhere else.
    page.on('pageerror', (err) => session.pageErrors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') session.pageErrors.push(msg.text());
    });
    // If answering fails, abort so the request does not hang; if the browser is going away that fails too.
    await page.route('**/*', (route) => serve(route, session).catch(() => route.abort().catch(() => undefined)));
    await page.goto(RENDER_ORIGIN + PAGE_PATH, { waitUntil: 'load', timeout: job.timeoutMs });
    const ready = await page.evaluate(() => Boolean((window as unknown as PlinthWindow).plinthPage));
    if (!ready) {
      await context.close().catch(() => undefined);
      throw new Error(`render page failed to start: ${session.pageErrors.join('; ') || 'unknown error'}`);
    }
    session.page = page;
    return page;
  }

  private async drawViews(session: Session, glb: Buffer, job: RenderJob): Promise<Buffer[]> {
    const page = session.page ?? (await this.openPage(session, job));
    session.glb = glb;
    const args: PageLoadArgs = { size: job.size, fovDeg: FOV_DEG, fill: FILL, environment: job.environment };
    try {
      await page.evaluate((a) => (window as unknown as PlinthWindow).plinthPage!.load(a), args);
    } catch (err) {
      throw new Error(cleanEvaluateError(err));
    } finally {
      session.glb = Buffer.alloc(0);
    }
    const pngs: Buffer[] = [];
    for (let i = 0; i < job.views; i++) {
      const azimuthDeg = (360 * i) / job.views;
      // One view per round trip bounds each base64 string to a single PNG.
      const dataUrl = await page.evaluate(
        ([az, el]) => (window as unknown as PlinthWindow).plinthPage!.render(az, el),
        [azimuthDeg, job.elevationDeg] as const,
      );
      if (!dataUrl.startsWith(PNG_DATA_URL)) throw new Error(`view ${i} did not produce a PNG`);
      pngs.push(Buffer.from(dataUrl.slice(PNG_DATA_URL.length), 'base64'));
    }
    return pngs;
  }

  private async dropPage(): Promise<void> {
    const session = await this.session?.catch(() => null);
    const page = session?.page;
    if (!session || !page) return;
    session.page = null;
    await page.context().close().catch(() => undefined);
  }

  /** Ends the current browser, gracefully or (stuck in a draw call) by force. */
  private async retire(force: boolean): Promise<void> {
    const pending = this.session;
    this.session = null;
    const session = await pending?.catch(() => null);
    if (!session) return;
    session.dead = true;
    // A wedged browser may never answer the close: wait at most the grace, then the server is killed.
    await withinGrace(session.browser.close().catch(() => undefined));
    await shutdown(session.server, force);
  }
}

async function serve(route: Route, session: Session): Promise<void> {
  const url = new URL(route.request().url());
  // Nothing should leave the page; refuse rather than let Chromium try the network.
  if (url.origin !== RENDER_ORIGIN) return route.abort('blockedbyclient');
  const headers = { 'cache-control': 'no-store' };
  if (url.pathname === PAGE_PATH) {
    return route.fulfill({ status: 200, headers, contentType: 'text/html; charset=utf-8', body: renderPageHtml() });
  }
  if (url.pathname === MODEL_PATH) {
    return route.fulfill({ status: 200, headers, contentType: 'model/gltf-binary', body: session.glb });
  }
  if (url.pathname.startsWith(THREE_PREFIX)) {
    const rel = decodeURIComponent(url.pathname.slice(THREE_PREFIX.length));
    const body = await readThreeFile(rel)?.catch(() => null);
    const contentType = rel.endsWith('.wasm') ? 'application/wasm' : 'text/javascript; charset=utf-8';
    if (body) return route.fulfill({ status: 200, headers, contentType, body });
  }
  return route.fulfill({ status: 404, headers, body: 'not found' });
}

async function shutdown(server: BrowserServer, force: boolean): Promise<void> {
  const proc = server.process();
  const exited = () => proc.exitCode !== null || proc.signalCode !== null;
  if (!force) await withinGrace(server.close().catch(() => undefined));
  if (!exited()) await server.kill().catch(() => undefined);
}

/** Waits for `work`, or for CLOSE_GRACE_MS, whichever comes first. */
async function withinGrace(work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
  clearTimeout(timer);
}

/**
 * playwright runs each of its API calls in a "zone" kept in an AsyncLocalStorage, and on Node 20 the first such call
 * switches on promise hooks for the whole process, for good: every promise of every request then pays for them (about
 * a tenth of the event loop's time under a flood of beacons, in a server whose worker has drawn one poster). Between
 * renders nothing reads those zones, so they are switched off; the next playwright call switches them on again.
 * Reached through playwright's own exported bundle; another layout of it leaves them on, as before.
 */
function quietPlaywrightZones(): void {
  try {
    const bundle = requireHere('playwright-core/lib/coreBundle') as { utils?: { currentZone?: () => { _asyncLocalStorage?: { disable?: () => void } } } };
    bundle.utils?.currentZone?.()._asyncLocalStorage?.disable?.();
  } catch {
    // not this version's layout
  }
}
