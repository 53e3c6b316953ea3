import type { Deps } from '../../deps.js';
import { runningExperimentFor } from '../experiments/index.js';
import { notFound } from '../../core/errors.js';
import { modelUrl, usdzVariantUrls } from '../products/index.js';
import { embedViewerFeatures } from './embed-viewer-features.js';
import { findProductRow, toProductRecord } from '../products/index.js';
import type { ProductRecord } from '../products/index.js';

/** model-viewer's own defaults, except the lighting, which is the neutral studio the posters are rendered under. */
export const VIEWER_DEFAULTS = { exposure: 1, shadow_intensity: 1, camera_orbit: null, environment: 'neutral', auto_rotate: false } as const;

export function embedJson(p: ProductRecord, storage: Deps['storage']) {
  const m = p.model!;
  const s = m.settings ?? {};
  return {
    id: p.id,
    title: p.title,
    model_url: modelUrl(p, storage)!,
    usdz_url: m.usdzKey ? storage.publicUrl(m.usdzKey) : null,
    // The element picks mobile on narrow, data-saving, slow or low-memory devices; models stored before deliveries have one file.
    sources: {
      web: modelUrl(p, storage)!,
      mobile: m.delivery ? storage.publicUrl(m.delivery.mobile.key) : modelUrl(p, storage)!,
      usdz: m.usdzKey ? storage.publicUrl(m.usdzKey) : null,
    },
    poster_url: p.thumbnailKey ? storage.publicUrl(p.thumbnailKey) : null,
    dimensions: m.dimensions,
    viewer: {
      exposure: s.exposure ?? VIEWER_DEFAULTS.exposure,
      shadow_intensity: s.shadow_intensity ?? VIEWER_DEFAULTS.shadow_intensity,
      camera_orbit: s.camera_orbit ?? VIEWER_DEFAULTS.camera_orbit,
      environment: s.environment ?? VIEWER_DEFAULTS.environment,
      auto_rotate: s.auto_rotate ?? VIEWER_DEFAULTS.auto_rotate,
      ...embedViewerFeatures(s, m.variants ?? []),
    },
    variants: (m.variants ?? []).map((name) => ({ name })),
    usdz_variants: usdzVariantUrls(m, storage),
  };
}

/** The public read's 404 rules: another organization's product, a draft, or one without a ready model. */
export async function embedProduct(deps: Pick<Deps, 'database' | 'storage'>, orgIds: readonly string[], id: string) {
  const row = await findProductRow(deps.database.db, id, orgIds);
  if (!row || row.status !== 'published' || row.model_status !== 'ready') throw notFound('product');
  const product = toProductRecord(row, []);
  if (!product.model) throw notFound('product');
  // The element assigns each viewer an arm itself (a stable hash), so the answer stays the same for every viewer.
  const experiment = await runningExperimentFor(deps, row.org_id, id);
  return { ...embedJson(product, deps.storage), experiment: experiment && { id: experiment.id, arms: experiment.arms } };
}
