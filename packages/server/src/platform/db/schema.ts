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
  /** who made the first request (key or user, with its roles); only they get the replay */
  principal: string | null;
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
  /** 'image' | 'model' */
  kind: Generated<string>;
  /** when a product first used it; null: unused, swept after the retention period */
  used_at: string | null;
  /** the product that first used it */
  used_by: string | null;
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

/** Event counts per (org, subject, bucket, internal); subject '' holds the organization's totals. */
export interface UsageRollupTable {
  org_id: string;
  subject_id: string;
  bucket_start: string;
  internal: number;
  view: number;
  ar_enter: number;
  ar_session_ended: number;
}

export interface ExportsTable {
  id: string;
  org_id: string;
  selection_hash: string;
  selection: string; // JSON: {product_ids, review_statuses}
  notify_email: string;
  state: 'queued' | 'ready' | 'failed';
  total_images: number;
  pending_images: number;
  error: string | null;
  mailed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  org_id: string;
  url: string;
  description: string | null;
  events: string; // JSON array of event types, or ["*"]
  enabled: number;
  disabled_reason: string | null; // gone (answered 410) | null
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  org_id: string;
  event_id: string;
  event_seq: number; // bigint on PostgreSQL: read through Number()
  event_type: string;
  ordering_key: string;
  status: 'pending' | 'succeeded' | 'failed';
  failure_reason: string | null;
  attempt_count: number;
  next_attempt_at: string | null;
  last_response_status: number | null;
  job_token: string | null; // the one job allowed to send it; null while it waits behind an earlier delivery
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  number: number;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  response_status: number | null;
  error_code: string | null;
  error_message: string | null;
  next_attempt_at: string | null;
}

export interface WebhookDispatchTable {
  id: string;
  scanned_seq: number; // bigint on PostgreSQL: read through Number()
  gaps: string; // JSON: [{seq, since}]
  chain_token: string | null;
  updated_at: string;
}

export interface DB {
  exports: ExportsTable;
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
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_dispatch: WebhookDispatchTable;
}
