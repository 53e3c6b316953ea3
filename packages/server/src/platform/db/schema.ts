import type { Generated } from 'kysely';

/**
 * Table shapes as stored. Portable across SQLite and PostgreSQL:
 * timestamps are ISO-8601 UTC text, JSON is text, booleans are 0/1 integers.
 */
export interface OrganizationsTable {
  id: string;
  name: string;
  plan: string; // none | trial | active | trial_used | payment_failed
  active_product_cap: number | null;
  credit_balance: number;
  created_at: string;
}

export interface CreditLedgerTable {
  id: string;
  org_id: string;
  delta: number;
  balance_after: number;
  reason: string; // grant | generation | refund | …
  ref: string | null;
  created_at: string;
}

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string | null;
  created_at: string;
}

export interface MembershipsTable {
  org_id: string;
  user_id: string;
  role: 'owner' | 'admin' | 'member';
  created_at: string;
}

export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

export interface ProjectsTable {
  id: string;
  org_id: string;
  name: string;
  allowed_domains: string; // JSON array of origins
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  type: 'secret' | 'publishable';
  name: string | null;
  display_prefix: string;
  key_hash: string;
  scopes: string; // JSON array
  project_id: string | null;
  created_by: string | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface ApiKeyOrgsTable {
  key_id: string;
  org_id: string;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  request_hash: string;
  state: 'started' | 'done';
  status_code: number | null;
  response_headers: string | null;
  response_body: string | null;
  locked_at: string;
  created_at: string;
}

export interface EventsTable {
  id: string;
  org_id: string;
  type: string;
  data: string; // JSON
  created_at: string;
  seq: Generated<number>;
}

export interface JobsTable {
  id: string;
  queue: string;
  payload: string; // JSON
  state: 'queued' | 'active' | 'completed' | 'failed';
  attempts: number;
  max_attempts: number;
  run_at: string;
  locked_until: string | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProductsTable {
  id: string;
  org_id: string;
  title: string | null;
  custom_id: string | null;
  status: 'draft' | 'published' | 'archived';
  model_status: 'none' | 'queued' | 'generating' | 'ready' | 'failed';
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
  review_status: 'pending' | 'accepted' | 'rejected';
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
  created_at: string;
  updated_at: string;
}

export interface QuoteUsesTable {
  nonce: string;
  org_id: string;
  product_id: string | null;
  created_at: string;
}

export interface UploadsTable {
  id: string;
  org_id: string;
  path: string;
  storage_key: string;
  bytes: number;
  content_type: string;
  created_at: string;
}

/** One row per accepted beacon event (bev_…); `internal` and `clamped` are 0/1. */
export interface BeaconEventsTable {
  id: string;
  org_id: string;
  subject_id: string;
  type: 'view' | 'ar_enter' | 'ar_session_ended';
  internal: number;
  occurred_at: string;
  received_at: string;
  viewer_id: string | null;
  duration_ms: number | null;
  clamped: number;
}

/** Event counts per (org, bucket, subject, type, internal); usage_hourly and usage_daily share it. */
export interface UsageRollupTable {
  org_id: string;
  bucket_start: string;
  subject_id: string;
  type: 'view' | 'ar_enter' | 'ar_session_ended';
  internal: number;
  count: number;
}

export interface DB {
  beacon_events: BeaconEventsTable;
  usage_hourly: UsageRollupTable;
  usage_daily: UsageRollupTable;
  products: ProductsTable;
  product_tags: ProductTagsTable;
  images: ImagesTable;
  quote_uses: QuoteUsesTable;
  uploads: UploadsTable;
  organizations: OrganizationsTable;
  credit_ledger: CreditLedgerTable;
  users: UsersTable;
  memberships: MembershipsTable;
  sessions: SessionsTable;
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  api_key_orgs: ApiKeyOrgsTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  jobs: JobsTable;
}
