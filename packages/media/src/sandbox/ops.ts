import { MediaError } from '../errors.js';
import type { FinishedImage, FinishInput } from '../finish/finish.js';
import type { GenerateHints, GenerateResult, GeneratorView } from '../generate/generator.js';
import type { ProcessedModel, ProcessModelOptions, RescaleTarget } from '../gltf/model-pipeline.js';
import type { DeliveryResult } from '../delivery/deliveries.js';
import type { DeliveryBudgets } from '../delivery/delivery-budgets.js';
import type { ProcessedImage, ProcessImageOptions } from '../image/image-pipeline.js';
import type { PageProduct } from '../page/page-extract.js';
import type { RenderOptions } from '../render/renders.js';
import type { ExtractFramesOptions } from '../video/video-frames.js';

/**
 * What an operation may ask of whoever runs it. In the sandbox these travel back over IPC to the
 * server, so a model's external resources are still fetched by the server's guarded fetcher and never
 * by the child, and progress reaches the job that reports it.
 */
export interface MediaHost {
  fetchBytes(url: string): Promise<Buffer>;
  progress(percent: number, step: string): void | Promise<void>;
  /**
   * Draws `views` views of a GLB, `size` px square, on the host's warm renderer (one browser per worker, not one
   * per job); `glb` null is the model the operation was given, which the host still holds and need not be sent.
   */
  renderViews?(glb: Buffer | null, views: number, size: number): Promise<Buffer[]>;
}

/**
 * Every operation the sandbox runs: its name, its input and its output, in one map. Inputs and outputs
 * are plain data (Buffers, numbers, strings) because they cross a process boundary; the server names an
 * operation by a key of this map, so a name or a shape cannot drift between the two sides.
 */
export interface MediaOps {
  'image.process': { input: { data: Buffer; options?: ProcessImageOptions }; output: ProcessedImage };
  'video.frames': { input: { file: string; options?: ExtractFramesOptions }; output: Buffer[] };
  'page.extract': { input: { html: string; pageUrl: string }; output: PageProduct };
  'model.process_buffer': { input: { data: Buffer; baseUrl: string | null; options?: ProcessModelOptions }; output: ProcessedModel };
  'model.rescale': { input: { glb: Buffer; scale: RescaleTarget }; output: ProcessedModel };
  /** Web, mobile and USDZ deliveries of a master GLB, checked with the host's renderViews; `check` false: only pass-through. */
  'model.deliver': { input: { master: Buffer; budgets: DeliveryBudgets; check: boolean }; output: DeliveryResult };
  'generate.builtin': { input: { views: GeneratorView[]; hints: GenerateHints }; output: GenerateResult };
  'render.turntable': { input: { glb: Buffer; options: RenderOptions }; output: Buffer[] };
  'finish.image': { input: FinishInput; output: FinishedImage };
  /**
   * A child's warm-up, asked by a worker at start: loads the model import's code (glTF pipeline, deliveries, their
   * WebAssembly) and runs it once on a tiny built-in model, so the worker's first import does not pay for it.
   */
  'sandbox.warm': { input: Record<string, never>; output: { pid: number } };
  /**
   * Diagnostics for the sandbox itself (tests, the overhead bench): echo, hold memory, spin, or start a tool that
   * runs for `toolSeconds` (`sleep`, in its own process group as COLMAP and ffmpeg are) and answer its pid.
   */
  'sandbox.probe': {
    input: { echo?: Buffer; allocateMb?: number; spinMs?: number; toolSeconds?: number };
    output: { echo: Buffer | null; pid: number; toolPid: number | null };
  };
}

export type MediaOpName = keyof MediaOps;
export type MediaOpInput<K extends MediaOpName> = MediaOps[K]['input'];
export type MediaOpOutput<K extends MediaOpName> = MediaOps[K]['output'];

type Handlers = { [K in MediaOpName]: (input: MediaOpInput<K>, host: MediaHost) => Promise<MediaOpOutput<K>> };

/** Memory the probe holds on to, so an allocation stays counted until the child is gone. */
const held: Buffer[] = [];

// Each step loads its code on first use, so a child that only decodes images never loads the
// renderer or the generator, and starts quickly.
export const MEDIA_OPS: Handlers = {
  'image.process': async ({ data, options }) => (await import('../image/image-pipeline.js')).processImage(data, options),
  'video.frames': async ({ file, options }) => (await import('../video/video-frames.js')).extractFrames(file, options),
  'page.extract': async ({ html, pageUrl }) => (await import('../page/page-extract.js')).extractProduct(html, pageUrl),
  'model.process_buffer': async ({ data, baseUrl, options }, host) =>
    (await import('../gltf/model-pipeline.js')).processModelBuffer(data, baseUrl, (u) => host.fetchBytes(u), options),
  'model.rescale': async ({ glb, scale }) => (await import('../gltf/model-pipeline.js')).rescaleModel(glb, scale),
  'model.deliver': async ({ master, budgets, check }, host) => {
    const { makeDeliveries } = await import('../delivery/deliveries.js');
    const draw = check ? host.renderViews?.bind(host) : undefined;
    // Bytes arriving inside an IPC message may start at an offset a GLB's 32-bit header cannot be read at; a large
    // master arrives as a file of its own and is not copied again.
    const glb = master.byteOffset % 4 === 0 ? master : Buffer.from(master);
    return makeDeliveries(glb, {
      budgets,
      render: draw ? (candidate, views, size) => draw(candidate, views, size) : null,
      renderMaster: draw ? (views, size) => draw(null, views, size) : undefined,
    });
  },
  'generate.builtin': async ({ views, hints }, host) =>
    (await import('../generate/builtin-generator.js')).createBuiltinGenerator().generate(views, hints, (p, step) => host.progress(p, step)),
  'render.turntable': async ({ glb, options }) => (await import('../render/renders.js')).renderTurntable(glb, options),
  'finish.image': async (input) => (await import('../finish/finish.js')).finishImage(input),
  'sandbox.warm': async () => {
    const [{ warmUpModel }, { processModelBuffer }, { makeDeliveries }, { DEFAULT_DELIVERY_BUDGETS }] = await Promise.all([
      import('../render/warm-up-model.js'),
      import('../gltf/model-pipeline.js'),
      import('../delivery/deliveries.js'),
      import('../delivery/delivery-budgets.js'),
    ]);
    const model = await processModelBuffer(await warmUpModel(), null, () => Promise.reject(new Error('the warm-up model fetches nothing')));
    await makeDeliveries(model.glb, { budgets: DEFAULT_DELIVERY_BUDGETS, render: null });
    return { pid: process.pid };
  },
  'sandbox.probe': async ({ echo, allocateMb, spinMs, toolSeconds }) => {
    // Touch every page, so the memory is resident and not merely reserved.
    if (allocateMb) for (let i = 0; i < allocateMb; i++) held.push(Buffer.alloc(1024 * 1024, 1));
    if (spinMs) for (const end = Date.now() + spinMs; Date.now() < end; );
    const tool = toolSeconds ? (await import('../process-group.js')).spawnInGroup('sleep', [String(toolSeconds)], { stdio: 'ignore' }) : null;
    return { echo: echo ?? null, pid: process.pid, toolPid: tool?.pid ?? null };
  },
};

/** Runs one operation in this process: the sandbox child's body, and the in-process baseline of the bench. */
export function runMediaOp<K extends MediaOpName>(op: K, input: MediaOpInput<K>, host: MediaHost): Promise<MediaOpOutput<K>> {
  const handler = MEDIA_OPS[op] as ((input: MediaOpInput<K>, host: MediaHost) => Promise<MediaOpOutput<K>>) | undefined;
  if (!handler) return Promise.reject(new MediaError('unsupported_format', `Unknown media operation "${String(op)}"`));
  return handler(input, host);
}
