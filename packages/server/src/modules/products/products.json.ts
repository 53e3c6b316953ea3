import { modelWarnings } from '@plinth/media';
import { isBrowserAssetKey } from '../../platform/storage/names.js';
import type { BlobStore } from '../../platform/storage/types.js';
import type { DeliveryBudgetOverrides } from '@plinth/media';
import type { ImageRecord, ModelQualityRecord, ProductRecord, StoredDelivery, StoredModel } from './products.types.js';

/** Asset URLs are built at read time, so a PUBLIC_URL change never leaves stale URLs in the database. */
export function imageJson(i: ImageRecord, storage: BlobStore) {
  return {
    image_id: i.id,
    // Renders are browser assets; a fetched or uploaded original is served to its organization only.
    url: i.storageKey ? (isBrowserAssetKey(i.storageKey) ? storage.publicUrl(i.storageKey) : storage.privateUrl(i.storageKey)) : null,
    thumbnail_url: i.thumbKey ? storage.publicUrl(i.thumbKey) : null,
    width: i.width,
    height: i.height,
    position: i.position,
    origin: i.origin,
    image_review_status: i.reviewStatus,
    settings: i.settings,
    cutout: cutoutOf(i),
    compliance: i.compliance,
    error: i.error,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
  };
}

export interface CutoutJson {
  status: 'ok' | 'uncertain' | 'none';
  method: 'alpha' | 'rendered' | 'isnet' | 'classical';
  coverage: number;
  confidence: number;
}

/**
 * The image's cut-out as analysed. Images analysed before cut-outs reported themselves carry only a
 * coverage: they are `uncertain`, so nobody mistakes an unjudged mask for a checked one.
 */
export function cutoutOf(i: Pick<ImageRecord, 'analysis'>): CutoutJson | null {
  const a = i.analysis as { cutout?: CutoutJson; coverage?: number; hasAlpha?: boolean } | null;
  if (!a) return null;
  if (a.cutout) return a.cutout;
  return { status: 'uncertain', method: a.hasAlpha ? 'alpha' : 'classical', coverage: a.coverage ?? 0, confidence: 0 };
}

/** Every imported model's quality: nothing was generated, its size is the file's. */
const IMPORTED_QUALITY: ModelQualityRecord = {
  method: 'imported',
  pose_source: null,
  views_used: 0,
  views_total: 0,
  coverage: null,
  heldout_iou: null,
  silhouette_iou: null,
  stereo_coverage: null,
  largest_piece: null,
  scale_source: 'file',
};

const NOT_MEASURED = { coverage: null, heldout_iou: null, stereo_coverage: null } as const;

/** The quality a stored model is served with; models stored before quality existed get the imported or no record. */
export function servedQuality(m: StoredModel): ModelQualityRecord | null {
  // Records stored before the held-out gate lack its fields: they are served as not measured.
  if (m.quality) return { ...NOT_MEASURED, ...m.quality };
  return m.origin === 'imported' ? IMPORTED_QUALITY : null;
}

export function modelUrl(p: ProductRecord, storage: BlobStore): string | null {
  return p.model && p.modelStatus === 'ready' ? storage.publicUrl(p.model.glbKey) : null;
}

export function deliveryJson(d: StoredDelivery, storage: BlobStore) {
  const glb = (g: StoredDelivery['web']) => ({ url: storage.publicUrl(g.key), bytes: g.bytes, triangles: g.triangles, max_texture_px: g.maxTexturePx, ssim: g.ssim });
  return { web: glb(d.web), mobile: glb(d.mobile), usdz: { url: storage.publicUrl(d.usdz.key), bytes: d.usdz.bytes, ssim: d.usdz.ssim } };
}

export interface BudgetJson {
  max_bytes?: number;
  max_triangles?: number;
  max_texture_px?: number;
}
export type BudgetsJson = Partial<Record<'web' | 'mobile' | 'usdz', BudgetJson>>;

export function budgetsJson(o: DeliveryBudgetOverrides): BudgetsJson {
  const out: BudgetsJson = {};
  for (const [name, b] of Object.entries(o) as [keyof BudgetsJson, NonNullable<DeliveryBudgetOverrides['web']>][]) {
    out[name] = {
      ...(b.maxBytes !== undefined && { max_bytes: b.maxBytes }),
      ...(b.maxTriangles != null && { max_triangles: b.maxTriangles }),
      ...(b.maxTexturePx !== undefined && { max_texture_px: b.maxTexturePx }),
    };
  }
  return out;
}

export function budgetsFromJson(j: BudgetsJson): DeliveryBudgetOverrides {
  const out: DeliveryBudgetOverrides = {};
  for (const [name, b] of Object.entries(j) as [keyof BudgetsJson, BudgetJson][]) {
    out[name] = {
      ...(b.max_bytes !== undefined && { maxBytes: b.max_bytes }),
      ...(b.max_triangles !== undefined && { maxTriangles: b.max_triangles }),
      ...(b.max_texture_px !== undefined && { maxTexturePx: b.max_texture_px }),
    };
  }
  return out;
}

export function productJson(p: ProductRecord, storage: BlobStore) {
  const m = p.model;
  return {
    object: 'product' as const,
    id: p.id,
    org_id: p.orgId,
    title: p.title,
    custom_id: p.customId,
    status: p.status,
    model_status: p.modelStatus,
    model_url: modelUrl(p, storage),
    thumbnail_url: p.thumbnailKey ? storage.publicUrl(p.thumbnailKey) : null,
    tags: p.tags,
    source: p.source,
    images: p.images.map((i) => imageJson(i, storage)),
    model: m
      ? {
          url: modelUrl(p, storage),
          // Only secret keys and sessions ever see this record (a publishable key gets the public projection).
          master_url: m.masterKey && p.modelStatus === 'ready' ? storage.privateUrl(m.masterKey) : null,
          usdz_url: m.usdzKey && p.modelStatus === 'ready' ? storage.publicUrl(m.usdzKey) : null,
          delivery: m.delivery && p.modelStatus === 'ready' ? { ...deliveryJson(m.delivery, storage), usdz_variants: usdzVariantUrls(m, storage) } : null,
          delivery_budgets: m.deliveryBudgets ? budgetsJson(m.deliveryBudgets) : null,
          decision: m.decision,
          dimensions: m.dimensions,
          triangles: m.triangles,
          bytes: m.bytes,
          settings: m.settings,
          variants: (m.variants ?? []).map((name) => ({ name })),
          origin: m.origin,
          quality: servedQuality(m),
          // Models stored before warnings existed get them from their stored size.
          warnings: m.warnings ?? (m.dimensions ? modelWarnings(m.dimensions) : []),
        }
      : null,
    analysis_status: p.analysis,
    images_status: p.imagesStatus,
    progress: p.progress,
    step: p.step,
    error: p.error,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    published_at: p.publishedAt,
  };
}

/** The public projection: exactly these five fields, for a publishable key. */
export function publicProjection(p: ProductRecord, storage: BlobStore) {
  return {
    id: p.id,
    title: p.title,
    model_url: modelUrl(p, storage),
    thumbnail_url: p.thumbnailKey ? storage.publicUrl(p.thumbnailKey) : null,
    model_status: p.modelStatus,
  };
}

/** name -> public URL of that variant's USDZ; empty without variants. */
export function usdzVariantUrls(m: StoredModel, storage: BlobStore): Record<string, string> {
  return Object.fromEntries(Object.entries(m.usdzVariantKeys ?? {}).map(([name, key]) => [name, storage.publicUrl(key)]));
}
