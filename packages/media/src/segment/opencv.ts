/**
 * OpenCV compiled to WebAssembly. The module is usable only once its runtime has initialised. It is
 * loaded as CommonJS (an ESM default-import wrapper would swallow `onRuntimeInitialized`), and it is
 * a thenable resolving to itself: resolving any promise with it never settles. Hence the box.
 */
import { createRequire } from 'node:module';
import type cvTypes from '@techstark/opencv-js';

export type Cv = typeof cvTypes;
let ready: Promise<{ cv: Cv }> | null = null;

export function opencv(): Promise<{ cv: Cv }> {
  if (!ready) {
    ready = new Promise((resolve) => {
      const cv = createRequire(import.meta.url)('@techstark/opencv-js') as Cv & { onRuntimeInitialized?: () => void };
      if (typeof (cv as { Mat?: unknown }).Mat === 'function') resolve({ cv });
      else cv.onRuntimeInitialized = () => resolve({ cv });
    });
  }
  return ready;
}
