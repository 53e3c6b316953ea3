import sharp from 'sharp';
import { renderTurntable } from '../render/renders.js';
import { ssimRgba } from './ssim.js';

/**
 * Draws a GLB from `views` equal azimuth steps and returns one square RGBA PNG per view: all the delivery step
 * needs of a renderer. In the media sandbox it is the server's warm browser, asked over IPC (MediaHost.renderViews).
 */
export type ViewRenderer = (glb: Buffer, views: number, size: number) => Promise<Buffer[]>;

/** This process's warm renderer (the one posters use): one browser, launched on first use and kept. */
export function warmViewRenderer(chromiumPath: string, timeoutMs?: number): ViewRenderer {
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
 * Averages `factor`×`factor` blocks, colour weighted by alpha, as the SSIM authors advise before comparing
 * (a factor of max(1, round(side / 256))): it takes out the sub-pixel moiré a fine texture makes at render size,
 * which moves with any resampling and would otherwise fail a file no eye could tell apart.
 */
export function downsample(p: Pixels, factor: number): Pixels {
  if (factor <= 1) return p;
  const width = Math.floor(p.width / factor);
  const height = Math.floor(p.height / factor);
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let dy = 0; dy < factor; dy++) {
        for (let dx = 0; dx < factor; dx++) {
          const i = ((y * factor + dy) * p.width + x * factor + dx) * 4;
          const w = p.data[i + 3];
          r += p.data[i] * w;
          g += p.data[i + 1] * w;
          b += p.data[i + 2] * w;
          a += w;
        }
      }
      const o = (y * width + x) * 4;
      if (a > 0) out.set([Math.round(r / a), Math.round(g / a), Math.round(b / a), Math.round(a / (factor * factor))], o);
    }
  }
  return { data: out, width, height };
}

const ssimScale = (side: number) => Math.max(1, Math.round(side / 256));

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
    const f = ssimScale(Math.min(a.width, a.height));
    const [da, db] = [downsample(a, f), downsample(b, f)];
    worst = Math.min(worst, ssimRgba(da.data, db.data, da.width, da.height));
  }
  return worst;
}
