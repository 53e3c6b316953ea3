import type { Compliance, DeliveryBudgetOverrides } from '@plinth/media';
export type { ImageOrigin, ModelStatus, ProblemInfo, ProductStatus, ReviewStatus } from '../../core/records.js';
import type { ImageOrigin, ModelStatus, ProblemInfo, ProductStatus, ReviewStatus } from '../../core/records.js';

export interface ViewerSettings {
  exposure?: number;
  shadow_intensity?: number;
  camera_orbit?: string;
  environment?: string;
  auto_rotate?: boolean;
  default_variant?: string | null;
  variant_picker?: boolean;
  hotspots?: { id: string; position: number[]; normal: number[]; label: string; text?: string }[];
  show_dimensions?: boolean;
  units?: 'metric' | 'imperial' | null;
  ar_placement?: 'floor' | 'wall';
  ar_scale?: 'auto' | 'fixed';
  ar_call_to_action?: { title: string; subtitle?: string; price?: string; button_label: string; url: string } | null;
}

export interface StoredModel {
  glbKey: string;
  usdzKey: string | null;
  decision: ReviewStatus;
  dimensions: { width: number; height: number; depth: number } | null;
  triangles: number | null;
  bytes: number | null;
  settings: ViewerSettings;
  /** KHR_materials_variants names, in the file's order; absent on models stored before variants were kept */
  variants?: string[];
  /** one USDZ per variant (Quick Look cannot switch variants): name -> storage key */
  usdzVariantKeys?: Record<string, string>;
  /** where the model came from: an import URL, or a generation */
  origin: 'imported' | 'generated';
  /** how it was made and how well it agrees with its photos; absent on models stored before it existed */
  quality?: ModelQualityRecord | null;
  /** what a reviewer should look at, from the media engine's measurements; absent on models stored before it existed */
  warnings?: ModelWarningRecord[];
  /** the normalised GLB every delivery is made from (a private key); absent on models stored before deliveries existed */
  masterKey?: string | null;
  /** the files made from the master; `glbKey` is the web one and `usdzKey` the USDZ one */
  delivery?: StoredDelivery | null;
  /** this model's own budgets, laid over the installation's (PATCH /v1/products/{id}/model {delivery_budgets}) */
  deliveryBudgets?: DeliveryBudgetOverrides | null;
}

export interface StoredGlbDelivery {
  key: string;
  bytes: number;
  triangles: number;
  maxTexturePx: number;
  /** null when no renderer checked it (the master itself was delivered) */
  ssim: number | null;
}

export interface StoredDelivery {
  web: StoredGlbDelivery;
  mobile: StoredGlbDelivery;
  usdz: { key: string; bytes: number; ssim: number | null };
}

/** model.warnings[] as served: `unusual_size` when the largest side suggests wrong units, `over_budget` per delivery that could not meet its budget. */
export interface ModelWarningRecord {
  code: 'unusual_size' | 'over_budget';
  message: string;
  /** over_budget only: which delivery, and its size */
  delivery?: 'web' | 'mobile' | 'usdz';
  bytes?: number;
}

/** model.quality as served (snake_case, like the JSON). */
export interface ModelQualityRecord {
  method: 'posed_stereo' | 'posed_hull' | 'turntable_hull' | 'relief_card' | 'external' | 'imported';
  pose_source: 'sfm' | 'mat' | 'given' | 'assumed' | null;
  views_used: number;
  views_total: number;
  coverage: { largest_gap_deg: number; elevation_min_deg: number; elevation_max_deg: number } | null;
  heldout_iou: { median: number; min: number; views: number } | null;
  silhouette_iou: { median: number; min: number } | null;
  stereo_coverage: number | null;
  largest_piece: number | null;
  scale_source: 'given' | 'mat' | 'assumed' | 'file';
}

/** How the photos were taken, as the create or order said (see docs/generation.md). */
export interface CaptureSpec {
  kind: 'auto' | 'turntable' | 'walkaround';
  azimuths_deg?: number[];
  elevation_deg?: number;
}

/** The product's real size in metres, any side the shop knows. */
export interface DimensionsSpec {
  height?: number;
  width?: number;
  depth?: number;
}

/** What a generation needs to know beyond the photos; part of the source. */
export interface CaptureInput {
  capture?: CaptureSpec;
  dimensions?: DimensionsSpec;
}

export type ProductSource = (
  | { kind: 'image_urls'; image_urls: string[] }
  | { kind: 'image_paths'; image_paths: string[] }
  | { kind: 'video_url'; video_url: string }
  | { kind: 'source_url'; source_url: string }
  | { kind: 'model_url'; model_url: string }
  | { kind: 'model_path'; model_path: string }
) &
  CaptureInput;

export interface ImageRecord {
  id: string;
  productId: string;
  orgId: string;
  position: number;
  origin: ImageOrigin;
  reviewStatus: ReviewStatus;
  settings: Record<string, unknown>;
  storageKey: string | null;
  contentType: string | null;
  maskKey: string | null;
  thumbKey: string | null;
  width: number | null;
  height: number | null;
  bytes: number | null;
  sha256: string | null;
  analysis: Record<string, unknown> | null;
  sourceUrl: string | null;
  error: ProblemInfo | null;
  /** The compliance of the last finishing with the image's own settings (DESIGN section 16). */
  compliance: Compliance | null;
  createdAt: string;
  updatedAt: string;
}

export interface ProductRecord {
  id: string;
  orgId: string;
  title: string | null;
  customId: string | null;
  status: ProductStatus;
  modelStatus: ModelStatus;
  model: StoredModel | null;
  thumbnailKey: string | null;
  tags: string[];
  source: ProductSource;
  generateModel: boolean;
  analysis: 'none' | 'pending' | 'done' | 'failed';
  imagesStatus: 'none' | 'ingesting' | 'ready' | 'failed' | 'ordered';
  progress: number | null;
  step: string | null;
  error: ProblemInfo | null;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  images: ImageRecord[];
}

/** An image a job made, or could not make (with its reason), as products records it (`addImages`). */
export interface NewImage {
  id: string;
  origin: ImageOrigin;
  sourceUrl: string | null;
  processed: { contentType: string; width: number; height: number; bytes: number; analysis: unknown } | null;
  error: ProblemInfo | null;
  keys: { original: string; mask: string; thumb: string } | null;
  sha256: string | null;
}
