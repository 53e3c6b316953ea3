import type { ColumnType } from 'kysely';
import type { ModelStatus, ProductStatus, ReviewStatus } from '../../core/records.js';
export interface ProductsTable {
  id: string;
  org_id: string;
  title: string | null;
  custom_id: string | null;
  status: ProductStatus;
  model_status: ModelStatus;
  model: string | null; // JSON: StoredModel
  thumbnail_key: string | null;
  tags: string; // JSON array
  source: string; // JSON: {kind, …}
  generate_model: number;
  analysis: 'none' | 'pending' | 'done' | 'failed';
  images_status: 'none' | 'ingesting' | 'ready' | 'failed' | 'ordered';
  progress: number | null;
  step: string | null;
  error: string | null; // JSON: {code, message}
  created_at: string;
  updated_at: string;
  published_at: string | null;
}

export interface ProductTagsTable {
  product_id: string;
  org_id: string;
  tag: string;
}

export interface ImagesTable {
  id: string;
  product_id: string;
  org_id: string;
  position: number;
  origin: 'fetched' | 'uploaded' | 'video_frame' | 'rendered';
  review_status: ReviewStatus;
  settings: string; // JSON: partial image settings
  storage_key: string | null;
  content_type: string | null;
  mask_key: string | null;
  thumb_key: string | null;
  width: number | null;
  height: number | null;
  bytes: number | null;
  sha256: string | null;
  analysis: string | null; // JSON
  source_url: string | null;
  error: string | null; // JSON: {code, message}
  /** JSON: the compliance of the last finishing with the image's own settings; null until then. */
  compliance: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1 when that compliance passed, 0 when it failed, null when not measured. */
  channel_ready: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: string;
  updated_at: string;
}

/** This module's tables, created by `products.migration.ts`; `src/db.ts` adds them to the app's `DB`. */
export interface ProductsTables {
  products: ProductsTable;
  product_tags: ProductTagsTable;
  images: ImagesTable;
  /** the nonces of committed quote tokens: each token commits once */
}
