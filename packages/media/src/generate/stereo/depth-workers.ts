import { Worker } from 'node:worker_threads';
import { sweepDepth, type SweepImage, type SweepResult, type SweepTask } from './plane-sweep.js';

// The depth maps in worker threads, two by default (the machine's cores): every worker gets the photos once,
// in shared memory, then takes one reference photo at a time. The worker's code is the sweep function's own
// text, so the same source runs from the compiled package and under the test runner.

/** Worker threads for the depth maps. */
export const STEREO_THREADS = 2;

const workerSource = () => `
const { parentPort, workerData } = require('node:worker_threads');
const sweepDepth = ${sweepDepth.toString()};
parentPort.on('message', (task) => {
  const result = sweepDepth(workerData.images, task);
  parentPort.postMessage(result, [result.depth.buffer, result.score.buffer, result.texture.buffer]);
});
`;

/** Grey levels in shared memory, so the workers read the photos without a copy each. */
export function sharedGray(length: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(length));
}

/** Every task's depth map, in order; `onDone` after each. */
export async function sweepAll(
  images: readonly SweepImage[],
  tasks: readonly SweepTask[],
  opts: { threads?: number; onDone?: (done: number, total: number) => void | Promise<void> } = {},
): Promise<SweepResult[]> {
  const threads = Math.max(1, Math.min(opts.threads ?? STEREO_THREADS, tasks.length));
  const results = new Array<SweepResult>(tasks.length);
  let done = 0;
  if (threads === 1) {
    for (let i = 0; i < tasks.length; i++) {
      results[i] = sweepDepth(images, tasks[i]);
      await opts.onDone?.(++done, tasks.length);
      // Let the event loop breathe between photos.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return results;
  }
  const source = workerSource();
  let next = 0;
  const lane = async () => {
    const worker = new Worker(source, { eval: true, workerData: { images } });
    try {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await new Promise<SweepResult>((resolve, reject) => {
          const fail = (error: Error) => {
            worker.off('message', ok);
            reject(error);
          };
          const ok = (result: SweepResult) => {
            worker.off('error', fail);
            resolve(result);
          };
          worker.once('message', ok);
          worker.once('error', fail);
          worker.postMessage(tasks[i]);
        });
        await opts.onDone?.(++done, tasks.length);
      }
    } finally {
      await worker.terminate();
    }
  };
  await Promise.all(Array.from({ length: threads }, lane));
  return results;
}
