/**
 * IS-Net (dichotomous image segmentation) on onnxruntime-node, CPU only. The session is created once
 * per process and reused: the first image pays the model load, the rest do not.
 */
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { MediaError } from '../errors.js';
import { loadModelBytes, type ModelSource } from './isnet-model.js';
import { resampleBilinear } from './mask-refine.js';
import type { Probability, RgbImage, Segmenter } from './segment-types.js';

/** The network's fixed input side. */
const SIDE = 1024;
/** Working resolution of the probability map (longest side): the model's own output resolution. */
const WORK_SIDE = 1024;

const sessions = new Map<string, Promise<ort.InferenceSession>>();

function session(source: ModelSource, threads: number): Promise<ort.InferenceSession> {
  const key = `${source.kind}:${source.location}:${threads}`;
  let pending = sessions.get(key);
  if (!pending) {
    pending = (async () => {
      const bytes = await loadModelBytes(source);
      try {
        return await ort.InferenceSession.create(bytes, {
          executionProviders: ['cpu'],
          intraOpNumThreads: threads,
          interOpNumThreads: 1,
          graphOptimizationLevel: 'all',
          // The arena keeps peak buffers for the life of the process; without it the 1024² activations are freed.
          enableCpuMemArena: false,
          // Planning one block for all activations saves little time here and costs ~130 MB of peak memory.
          enableMemPattern: false,
        });
      } catch (err) {
        throw new MediaError('tool_failed', 'The segmenter model cannot be loaded.', { cause: (err as Error).message });
      }
    })();
    pending.catch(() => sessions.delete(key));
    sessions.set(key, pending);
  }
  return pending;
}

export interface IsNetOptions {
  source: ModelSource;
  /** CPU threads for one inference; default 2 */
  threads?: number;
}

export function createIsNetSegmenter(opts: IsNetOptions): Segmenter {
  const threads = opts.threads ?? 2;
  return {
    name: 'isnet',
    version: `isnet-2:${opts.source.name}`,
    model: opts.source.name,
    async probability(image: RgbImage): Promise<Probability> {
      const s = await session(opts.source, threads);
      const input = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
        .resize(SIDE, SIDE, { fit: 'fill', kernel: 'linear' })
        .raw()
        .toBuffer();
      // The model was trained on (v - 128) / 256 per channel, planar.
      const plane = SIDE * SIDE;
      const tensor = new Float32Array(3 * plane);
      for (let i = 0; i < plane; i++) {
        tensor[i] = (input[i * 3] - 128) / 256;
        tensor[plane + i] = (input[i * 3 + 1] - 128) / 256;
        tensor[2 * plane + i] = (input[i * 3 + 2] - 128) / 256;
      }
      const feeds = { [s.inputNames[0]]: new ort.Tensor('float32', tensor, [1, 3, SIDE, SIDE]) };
      const results = await s.run(feeds, [s.outputNames[0]]);
      const out = results[s.outputNames[0]];
      const raw = out.data as Float32Array;
      const scale = Math.min(1, WORK_SIDE / Math.max(image.width, image.height));
      const width = Math.max(1, Math.round(image.width * scale));
      const height = Math.max(1, Math.round(image.height * scale));
      const [prob, guide] = await Promise.all([
        Promise.resolve(clamp01(resampleBilinear(raw, SIDE, SIDE, width, height))),
        sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
          .resize(width, height, { fit: 'fill' })
          .raw()
          .toBuffer(),
      ]);
      out.dispose();
      return { prob, width, height, guide: { data: guide, width, height }, trust: 1 };
    },
  };
}

function clamp01(v: Float32Array): Float32Array {
  for (let i = 0; i < v.length; i++) v[i] = Math.min(1, Math.max(0, v[i]));
  return v;
}
