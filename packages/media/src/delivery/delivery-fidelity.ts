import sharp from 'sharp';
import { renderTurntable } from '../render/renders.js';
import { ssimRgba } from './ssim.js';

/**
 * Draws a GLB from `views` equal azimuth steps and returns one square RGBA PNG per view. The delivery step
 * needs nothing else of a renderer, so a warm (reused) browser can stand in for the cold one below.
 */
export type ViewRenderer = (glb: Buffer, views: number, size: number) => Promise<Buffer[]>;

/** The poster renderer, one Chromium per call. */
export function coldViewRenderer(chromiumPath: string, timeoutMs?: number): ViewRenderer {
  return (glb, views, size) => renderTurntable(glb, { chromiumPath, views, size, timeoutMs });
}

export const FIDELITY_VIEWS = 8;
export const FIDELITY_SIZE = 384;
export const SSIM_FLOOR = 0.95;

export interface Pixels {
  data: Uint8Array;
  width: number;
  height: number;
}

export async function decodeViews(pngs: Buffer[]): Promise<Pixels[]> {
  return Promise.all(
    pngs.map(async (png) => {
      const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
    }),
  );
}

/**
 * The delivery's fidelity: the lowest per-view SSIM against the master's views, so one bad side (a handle
 * simplified away, seen only from the back) fails the file however good the front looks.
 */
export function viewsSsim(master: Pixels[], delivery: Pixels[]): number {
  if (master.length !== delivery.length) throw new Error('fidelity: the two sets of views differ in number');
  let worst = 1;
  for (let i = 0; i < master.length; i++) {
    const a = master[i];
    const b = delivery[i];
    if (a.width !== b.width || a.height !== b.height) throw new Error('fidelity: views differ in size');
    worst = Math.min(worst, ssimRgba(a.data, b.data, a.width, a.height));
  }
  return worst;
}
