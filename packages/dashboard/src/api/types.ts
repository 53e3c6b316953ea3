export type Role = 'owner' | 'admin' | 'member';
export type ModelStatus = 'none' | 'queued' | 'generating' | 'ready' | 'failed';
export type ReviewStatus = 'pending' | 'accepted' | 'rejected';

export interface List<T> {
  data: T[];
  total: number;
  limit: number;
  offset: number;
}

export interface Me {
  user: { id: string; email: string };
  organizations: { id: string; name: string; role: Role; plan: string; credit_balance: number }[];
}

export interface ImageSettings {
  background?: string;
  shadow?: 'none' | 'soft' | 'hard' | 'contact';
  padding?: number;
  format?: 'jpeg' | 'png' | 'webp';
  preset?: string | null;
  fill?: number | null;
  size?: { width: number; height: number } | null;
}

export interface ComplianceCheck {
  code: 'size' | 'fill' | 'background' | 'format' | 'bytes' | 'not_cropped' | 'cutout';
  passed: boolean;
  measured: unknown;
  required: unknown;
}

export interface Compliance {
  preset: string | null;
  passed: boolean;
  checks: ComplianceCheck[];
}

export interface Cutout {
  status: 'ok' | 'uncertain' | 'none';
  method: string;
  coverage: number;
  confidence: number;
}

export interface ProductImage {
  image_id: string;
  url: string | null;
  thumbnail_url: string | null;
  width: number | null;
  height: number | null;
  position: number;
  origin: string;
  image_review_status: ReviewStatus;
  settings: ImageSettings;
  error: { code: string; message: string } | null;
  cutout?: Cutout | null;
  compliance?: Compliance | null;
}

export interface ModelQuality {
  method: string;
  pose_source: string | null;
  views_used: number;
  views_total: number;
  coverage?: { largest_gap_deg: number; elevation_min_deg: number; elevation_max_deg: number } | null;
  heldout_iou?: { median: number; min: number; views: number } | null;
  silhouette_iou: { median: number; min: number } | null;
  stereo_coverage?: number | null;
  largest_piece: number | null;
  scale_source: string;
}

/** Something about the model a reviewer should check; the model is usable either way. */
export interface ModelWarning {
  code: 'unusual_size' | (string & {});
  message: string;
}

export interface ProductModel {
  url: string | null;
  usdz_url: string | null;
  decision: ReviewStatus;
  dimensions: { width: number; height: number; depth: number } | null;
  triangles: number | null;
  bytes: number | null;
  settings: Record<string, unknown>;
  origin: string;
  quality?: ModelQuality | null;
  warnings?: ModelWarning[];
}

export interface Product {
  id: string;
  org_id: string;
  title: string | null;
  custom_id: string | null;
  status: 'draft' | 'published' | 'archived';
  model_status: ModelStatus;
  model_url: string | null;
  thumbnail_url: string | null;
  tags: string[];
  source: { kind: string };
  images: ProductImage[];
  model: ProductModel | null;
  analysis_status: string;
  images_status: string;
  progress: number | null;
  step: string | null;
  error: { code: string; message: string } | null;
  model_error?: { code: string; message: string } | null;
  created_at: string;
  updated_at: string;
  published_at: string | null;
}

export interface Quote {
  object: 'quote';
  operation: string;
  credits: number;
  balance_credits: number;
  estimated_seconds: number;
  expires_at: string;
  resume_token: string;
  input: Record<string, unknown>;
}

export interface ApiKey {
  id: string;
  type: 'secret' | 'publishable';
  name: string | null;
  prefix: string;
  scopes: string[];
  org_ids: string[];
  project_id: string | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  key?: string;
}

export interface Project {
  id: string;
  org_id: string;
  name: string;
  allowed_domains: string[];
  created_at: string;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  created_at: string;
  secret?: string;
}

export interface WebhookDelivery {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  failure_reason: string | null;
  attempt_count: number;
  last_response_status: number | null;
  next_attempt_at: string | null;
  created_at: string;
  attempts: { attempt: number; started_at: string; duration_ms: number | null; response_status: number | null; error: { code: string; message: string } | null }[];
}

export interface Usage {
  start: string;
  end: string;
  granularity: string;
  buckets: { start: string; view: number; ar_enter: number; ar_session_ended: number }[];
  totals: Record<string, number>;
  by_product?: { product_id: string; title: string | null; view: number; ar_enter: number; ar_session_ended: number }[];
}

export interface Member {
  user_id: string;
  email: string;
  role: Role;
  created_at: string;
}

export interface Credits {
  balance: number;
  plan: string;
  ledger: List<{ id: string; delta: number; balance_after: number; reason: string; ref: string | null; created_at: string }>;
}

export const IN_FLIGHT = (p: Pick<Product, 'model_status' | 'images_status'>) =>
  p.model_status === 'queued' || p.model_status === 'generating' || p.images_status === 'ingesting' || p.images_status === 'ordered';
