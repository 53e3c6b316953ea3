import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import {
  MediaError,
  closeRenderer,
  killTree,
  packLarge,
  renderTurntable,
  runMediaOp,
  unpackLarge,
  warmRenderer,
  type FromChild,
  type MediaHost,
  type MediaOpInput,
  type MediaOpName,
  type MediaOpOutput,
  type RenderOptions,
  type SerialisedError,
  type ToChild,
} from '@plinth/media';
import type { Logger } from '../../logger.js';

/** What a caller may lend an operation: the guarded fetcher for a model's resources, a progress sink. */
export type MediaCallHost = Partial<MediaHost>;

/** Runs media-engine operations away from the API process. */
export interface MediaRunner {
  run<K extends MediaOpName>(op: K, input: MediaOpInput<K>, host?: MediaCallHost): Promise<MediaOpOutput<K>>;
  /**
   * Launches this process's browser and draws once with `options`, so the first render of a worker does not pay
   * for Chromium's start (see WarmRenderer.warm). Within the same limits as a render; close() ends it.
   */
  warmRenderer(options: RenderOptions): Promise<void>;
  close(): Promise<void>;
}

export interface SandboxLimits {
  /** V8 heap cap and resident-memory watchdog of each child, in MB */
  memoryMb: number;
  /** wall time of one operation, in seconds */
  timeoutS: number;
  /** V8 stack of each child, in KB */
  stackKb: number;
  /** children alive at once; calls beyond wait for one */
  children: number;
}

/** How often a busy child's resident memory is read: native memory (libvips, Chromium's pipes) is not in V8's heap cap. */
const RSS_POLL_MS = 200;
/** Loading the engine's modules in a fresh child; generous, as the machine may be busy. */
const START_TIMEOUT_MS = 60_000;

/** The compiled child entry, or null when the media package has not been built (a checkout without `npm run build`). */
export function childEntry(): string | null {
  try {
    const file = createRequire(import.meta.url).resolve('@plinth/media/child');
    return existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

async function residentMb(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status);
    return kb ? Number(kb[1]) / 1024 : null;
  } catch {
    return null; // not Linux, or the child is already gone; the heap cap still applies
  }
}

function revive(error: SerialisedError): Error {
  if (error.reason) return new MediaError(error.reason, error.message, error.details ?? {});
  return Object.assign(new Error(error.message), { name: error.name });
}

interface Call {
  id: number;
  host: MediaCallHost;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/** What a render may take when its caller names no time: the renderer's own default. */
const RENDER_TIMEOUT_MS = 120_000;

/**
 * Renders run in this process, on its one warm Chromium (see WarmRenderer in the media package): the browser is
 * a process of its own that a child would only stand in front of, adding a copy of the model and of every
 * image, and a browser per child. The sandbox's time limit still bounds each render; a render cut by it fails
 * with 'processing_limit' as any other step does, and its browser is killed and relaunched for the next. Its
 * memory limit bounds what the browser keeps: holding more after a render, it is relaunched before the next.
 */
async function renderHere(input: MediaOpInput<'render.turntable'>, { timeoutS, memoryMb }: SandboxLimits): Promise<MediaOpOutput<'render.turntable'>> {
  const own = input.options.timeoutMs ?? RENDER_TIMEOUT_MS;
  const timeoutMs = Math.min(own, timeoutS * 1000);
  try {
    return await renderTurntable(input.glb, { ...input.options, timeoutMs, maxMemoryMb: memoryMb });
  } catch (err) {
    if (timeoutMs < own && /timed out/.test((err as Error).message)) {
      throw new MediaError('processing_limit', `Media processing took longer than ${timeoutS} s.`, { limit: 'time', timeout_s: timeoutS });
    }
    throw err;
  }
}

/** The warm-up of the browser renderHere uses, within the same time and memory limits as a render. */
function warmHere(options: RenderOptions, { timeoutS, memoryMb }: SandboxLimits): Promise<void> {
  const timeoutMs = Math.min(options.timeoutMs ?? RENDER_TIMEOUT_MS, timeoutS * 1000);
  return warmRenderer({ ...options, timeoutMs, maxMemoryMb: memoryMb });
}

/** One child process, running one operation at a time. */
class Slot {
  child: ChildProcess | null = null;
  call: Call | null = null;
  /** settles when the child has loaded and said so; its start-up is not counted against a step's time */
  private ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly entry: string,
    private readonly limits: SandboxLimits,
    private readonly logger: Logger,
    private readonly transferDir: string,
  ) {}

  private spawn(): ChildProcess {
    const child = fork(this.entry, [this.transferDir], {
      execArgv: [`--max-old-space-size=${this.limits.memoryMb}`, `--stack-size=${this.limits.stackKb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', () => reject(new MediaError('processing_limit', 'The media sandbox process did not start.')));
      setTimeout(() => reject(new MediaError('processing_limit', 'The media sandbox process did not start in time.')), START_TIMEOUT_MS).unref();
    });
    this.ready.catch(() => {});
    child.on('message', (message: FromChild) => this.onMessage(child, message));
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      this.fail(new MediaError('processing_limit', 'Media processing stopped before it finished (its sandbox process died).', { exit_code: code, signal }));
    });
    child.on('error', (err) => this.logger.warn({ err }, 'media sandbox child error'));
    // An idle child must not keep the server's event loop alive.
    child.unref();
    child.channel?.unref();
    return child;
  }

  /**
   * Ends the call in flight with `err` and kills the child with every tool it started (COLMAP, ffmpeg: each in a
   * process group of its own, which a SIGKILLed child could not end itself), so the next call starts afresh.
   */
  kill(err: MediaError) {
    const child = this.child;
    this.child = null;
    this.fail(err);
    if (child?.pid) killTree(child.pid);
    else child?.kill('SIGKILL');
  }

  private fail(err: Error) {
    const call = this.call;
    this.call = null;
    call?.reject(err);
  }

  private onMessage(child: ChildProcess, message: FromChild) {
    const call = this.call;
    if (!call || message.type === 'ready' || message.id !== call.id) return;
    if (message.type === 'done') {
      this.call = null;
      unpackLarge(message.output).then(call.resolve, call.reject);
    } else if (message.type === 'failed') {
      this.call = null;
      call.reject(revive(message.error));
    } else if (message.type === 'progress') {
      void Promise.resolve(call.host.progress?.(message.percent, message.step)).catch(() => {});
    } else if (message.type === 'fetch') {
      const reply = (m: Omit<Extract<ToChild, { type: 'fetched' }>, 'type' | 'id' | 'fetchId'>) =>
        child.connected && child.send({ type: 'fetched', id: call.id, fetchId: message.fetchId, ...m } satisfies ToChild);
      if (!call.host.fetchBytes) return reply({ error: { name: 'Error', message: 'this operation may not fetch' } });
      call.host.fetchBytes(message.url).then(
        async (data) => reply({ data: await packLarge(data, this.transferDir) }),
        (err: Error) => reply({ error: { name: err.name, message: err.message } }),
      );
    } else if (message.type === 'render') {
      const reply = (m: Omit<Extract<ToChild, { type: 'rendered' }>, 'type' | 'id' | 'fetchId'>) =>
        child.connected && child.send({ type: 'rendered', id: call.id, fetchId: message.fetchId, ...m } satisfies ToChild);
      const renderViews = call.host.renderViews;
      if (!renderViews) return reply({ error: { name: 'Error', message: 'this operation may not render' } });
      void (async () => renderViews((await unpackLarge(message.glb)) as Buffer | null, message.views, message.size))().then(
        async (pngs) => reply({ data: await packLarge(pngs, this.transferDir) }),
        (err: Error) => reply({ error: { name: err.name, message: err.message } }),
      );
    }
  }

  async run(id: number, op: MediaOpName, input: unknown, host: MediaCallHost): Promise<unknown> {
    this.child ??= this.spawn();
    const child = this.child;
    // A call in flight keeps the process alive; an idle child does not.
    child.ref();
    child.channel?.ref();
    try {
      await this.ready.catch((err: MediaError) => {
        // Never started: make sure it is gone, so the next call starts afresh.
        if (this.child === child) this.kill(err);
        throw err;
      });
      return await this.dispatch(child, id, op, input, host);
    } finally {
      child.unref();
      child.channel?.unref();
    }
  }

  private dispatch(child: ChildProcess, id: number, op: MediaOpName, input: unknown, host: MediaCallHost): Promise<unknown> {
    const { memoryMb, timeoutS } = this.limits;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(
        () => this.kill(new MediaError('processing_limit', `Media processing took longer than ${timeoutS} s.`, { limit: 'time', timeout_s: timeoutS })),
        timeoutS * 1000,
      );
      const watch = setInterval(() => {
        if (!child.pid) return;
        void residentMb(child.pid).then((mb) => {
          if (mb !== null && mb > memoryMb && this.child === child && this.call?.id === id) {
            this.kill(new MediaError('processing_limit', `Media processing needed more than ${memoryMb} MB of memory.`, { limit: 'memory', memory_mb: memoryMb }));
          }
        });
      }, RSS_POLL_MS);
      const settle = () => {
        clearTimeout(timer);
        clearInterval(watch);
      };
      this.call = {
        id,
        host,
        resolve: (v) => (settle(), resolve(v)),
        reject: (e) => (settle(), reject(e)),
      };
      void packLarge(input, this.transferDir).then((packed) =>
        child.send({ type: 'run', id, op, input: packed } satisfies ToChild, (err) => {
          if (err && this.call?.id === id) this.kill(new MediaError('processing_limit', 'The media sandbox could not take the job.', { cause: err.message }));
        }),
      );
    });
  }

  pid(): number | null {
    return this.child?.pid ?? null;
  }
}

/**
 * Media work in child processes with a heap cap, a resident-memory watchdog, a time limit and their own
 * stack. A child that dies or is killed fails only its call, with MediaError('processing_limit'); the next
 * call gets a fresh child. Children are kept between calls, so what one has loaded (a model session)
 * stays loaded. Renders are the exception: they drive this process's warm browser (see renderHere).
 */
export class MediaSandbox implements MediaRunner {
  private readonly slots: Slot[];
  private readonly idle: Slot[];
  private readonly waiting: ((slot: Slot) => void)[] = [];
  private nextId = 1;
  private closed = false;
  /** where large Buffers cross to and from the children; private to this server process */
  private readonly transferDir = mkdtempSync(join(tmpdir(), 'plinth-media-'));

  constructor(
    entry: string,
    private readonly limits: SandboxLimits,
    logger: Logger,
  ) {
    this.slots = Array.from({ length: Math.max(1, limits.children) }, () => new Slot(entry, limits, logger, this.transferDir));
    this.idle = [...this.slots];
  }

  async run<K extends MediaOpName>(op: K, input: MediaOpInput<K>, host: MediaCallHost = {}): Promise<MediaOpOutput<K>> {
    if (this.closed) throw new MediaError('processing_limit', 'The media sandbox is closed.');
    if (op === 'render.turntable') return renderHere(input as MediaOpInput<'render.turntable'>, this.limits) as Promise<MediaOpOutput<K>>;
    const slot = this.idle.pop() ?? (await new Promise<Slot>((resolve) => this.waiting.push(resolve)));
    try {
      return (await slot.run(this.nextId++, op, input, host)) as MediaOpOutput<K>;
    } finally {
      const next = this.waiting.shift();
      if (next) next(slot);
      else this.idle.push(slot);
    }
  }

  warmRenderer(options: RenderOptions): Promise<void> {
    if (this.closed) return Promise.reject(new MediaError('processing_limit', 'The media sandbox is closed.'));
    return warmHere(options, this.limits);
  }

  /** Process ids of the live children (tests kill one mid-job). */
  pids(): number[] {
    return this.slots.map((s) => s.pid()).filter((p): p is number => p !== null);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots) slot.kill(new MediaError('processing_limit', 'The media sandbox was closed.'));
    rmSync(this.transferDir, { recursive: true, force: true });
    await closeRenderer();
  }
}

/** The same interface, in this process: only where the child entry is not built (a development checkout). */
export class InlineMediaRunner implements MediaRunner {
  run<K extends MediaOpName>(op: K, input: MediaOpInput<K>, host: MediaCallHost = {}): Promise<MediaOpOutput<K>> {
    return runMediaOp(op, input, {
      fetchBytes: host.fetchBytes ?? (async () => {
        throw new Error('this operation may not fetch');
      }),
      progress: host.progress ?? (() => {}),
      renderViews: host.renderViews,
    });
  }

  warmRenderer(options: RenderOptions): Promise<void> {
    return warmRenderer(options);
  }

  async close(): Promise<void> {
    await closeRenderer();
  }
}

export function createMediaRunner(limits: SandboxLimits, logger: Logger): MediaRunner {
  const entry = childEntry();
  if (entry) return new MediaSandbox(entry, limits, logger);
  logger.warn('media sandbox: @plinth/media is not built (npm run build), so media runs inside this process without its limits');
  return new InlineMediaRunner();
}
