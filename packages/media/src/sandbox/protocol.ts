import type { MediaErrorReason } from '../errors.js';
import type { MediaOpName } from './ops.js';

/** Messages between the server and a sandbox child (Node IPC, advanced serialisation). */
export type ToChild =
  | { type: 'run'; id: number; op: MediaOpName; input: unknown }
  | { type: 'fetched'; id: number; fetchId: number; data?: unknown; error?: SerialisedError }
  | { type: 'rendered'; id: number; fetchId: number; data?: unknown; error?: SerialisedError };

export type FromChild =
  | { type: 'ready'; pid: number }
  | { type: 'done'; id: number; output: unknown }
  | { type: 'failed'; id: number; error: SerialisedError }
  | { type: 'fetch'; id: number; fetchId: number; url: string }
  /** `glb` null: the model the operation was given (the parent still holds it). Answered by 'rendered' with the PNGs. */
  | { type: 'render'; id: number; fetchId: number; glb: unknown; views: number; size: number }
  | { type: 'progress'; id: number; percent: number; step: string };

/** A MediaError keeps its reason and details across the boundary; anything else only its name and message. */
export interface SerialisedError {
  name: string;
  message: string;
  reason?: MediaErrorReason;
  details?: Record<string, unknown>;
}
