import sharp from 'sharp';
import type { Deps } from '../../deps.js';
import { browserAssetKey } from '../../platform/storage/names.js';
import { toolCapability } from '../../platform/tools.js';
import type { ProductRecord } from '../products/index.js';

/** Big enough for a retina embed a few hundred pixels wide; one view renders in seconds on a CPU. */
const POSTER_SIZE = 1024;
const POSTER_TIMEOUT_MS = 90_000;
/**
 * libwebp's effort (0–6, sharp's default 4): at 2 a 1024 px poster encodes in about 40 % of the time, for files
 * about a tenth larger at the same quality; an import spends more on its poster's encoding than on its model.
 */
const POSTER_WEBP_EFFORT = 2;

/** The render a poster is: the first render a worker is asked for, and so the one its warm-up rehearses. */
function posterRender(deps: Pick<Deps, 'config'>) {
  return { chromiumPath: deps.config.tools.chromium, views: 1, size: POSTER_SIZE, timeoutMs: POSTER_TIMEOUT_MS, environment: true };
}

/**
 * Readies the worker's browser for its first poster (see WarmRenderer.warm): a worker's first import would
 * otherwise wait seconds for Chromium to start. Resolves false, launching nothing, where Chromium is missing.
 */
export async function warmPosterRenderer(deps: Pick<Deps, 'config' | 'media'>): Promise<boolean> {
  if (!(await toolCapability(deps.config.tools, 'chromium')).available) return false;
  await deps.media.warmRenderer(posterRender(deps));
  return true;
}

/**
 * One render of an imported model, from the viewer's default camera (front, slightly above), to stand as the
 * product's thumbnail and the embed's poster until the model has loaded. Free: it is part of the import.
 * Best effort: without Chromium, or if the render fails, the import still succeeds without a poster.
 */
export async function renderPoster(deps: Pick<Deps, 'config' | 'storage' | 'logger' | 'media'>, product: ProductRecord, glb: Uint8Array): Promise<string | null> {
  if (!(await toolCapability(deps.config.tools, 'chromium')).available) {
    deps.logger.warn({ productId: product.id }, 'no poster for the imported model: chromium is not installed (see PLINTH_CHROMIUM_PATH)');
    return null;
  }
  try {
    const [png] = await deps.media.run('render.turntable', { glb: Buffer.from(glb), options: posterRender(deps) });
    const webp = await sharp(png).webp({ quality: 86, alphaQuality: 90, effort: POSTER_WEBP_EFFORT }).toBuffer();
    const key = browserAssetKey(product, '.poster.webp');
    await deps.storage.put(key, webp, { contentType: 'image/webp' });
    return key;
  } catch (err) {
    deps.logger.warn({ err, productId: product.id }, 'no poster for the imported model: the render failed');
    return null;
  }
}
