// The sandbox child: runs media operations for its parent, one at a time, over IPC. Started by the
// server with a capped heap and its own stack size; if anything here dies, only this process does.
import { isMediaError } from './errors.js';
import { runMediaOp } from './sandbox/ops.js';
import { packLarge, unpackLarge } from './sandbox/transfer.js';
import type { FromChild, SerialisedError, ToChild } from './sandbox/protocol.js';

const send = (message: FromChild) => process.send?.(message);
/** The private directory large Buffers travel through, named by the parent. */
const transferDir = process.argv[2];
/** Fetches and renders asked of the parent, by their fetchId. */
const pendingFetches = new Map<number, { resolve: (data: unknown) => void; reject: (err: Error) => void }>();
let nextFetchId = 1;

function serialise(err: unknown): SerialisedError {
  if (isMediaError(err)) return { name: err.name, message: err.message, reason: err.reason, details: err.details };
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'Error', message: String(err) };
}

async function run(message: Extract<ToChild, { type: 'run' }>) {
  const { id } = message;
  const ask = <T>(message: (fetchId: number) => FromChild) =>
    new Promise<T>((resolve, reject) => {
      const fetchId = nextFetchId++;
      pendingFetches.set(fetchId, { resolve: (data) => resolve(data as T), reject });
      send(message(fetchId));
    });
  const host = {
    fetchBytes: (url: string) => ask<Buffer>((fetchId) => ({ type: 'fetch', id, fetchId, url })),
    progress: (percent: number, step: string) => void send({ type: 'progress', id, percent, step }),
    // The browser is the parent's warm one: a model goes over as a file (packLarge), the master not at all.
    renderViews: async (glb: Buffer | null, views: number, size: number) => {
      const packed = glb && transferDir ? await packLarge(glb, transferDir) : glb;
      return ask<Buffer[]>((fetchId) => ({ type: 'render', id, fetchId, glb: packed, views, size }));
    },
  };
  try {
    const output = await runMediaOp(message.op, (await unpackLarge(message.input)) as never, host);
    send({ type: 'done', id, output: transferDir ? await packLarge(output, transferDir) : output });
  } catch (err) {
    send({ type: 'failed', id, error: serialise(err) });
  }
}

process.on('message', (message: ToChild) => {
  if (message.type === 'run') void run(message);
  else if (message.type === 'fetched' || message.type === 'rendered') {
    const waiting = pendingFetches.get(message.fetchId);
    pendingFetches.delete(message.fetchId);
    if (!waiting) return;
    if (message.data) void unpackLarge(message.data).then(waiting.resolve, waiting.reject);
    else waiting.reject(Object.assign(new Error(message.error?.message ?? 'fetch failed'), { name: message.error?.name ?? 'Error' }));
  }
});
// Without its parent there is nobody to answer: leave rather than linger as an orphan, and take the tools this
// child started with it (exit kills their process groups: see process-group.ts).
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', pid: process.pid });
