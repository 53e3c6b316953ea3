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

/** A live worker process (see platform/jobs/heartbeat.ts). Timestamps are ISO-8601 UTC text. */
export interface WorkersTable {
  id: string;
  host: string;
  pid: number;
  started_at: string;
  heartbeat_at: string;
  /** JSON: [{ queue, id, started }] of the jobs it runs */
  jobs: string;
}

/**
 * The platform's own tables: tenancy and identity (organizations and their credit ledger, users,
 * memberships, sessions, projects, API keys), idempotency records, the events outbox, the local job
 * table and the workers' heartbeats. Every module's tables extend this set in `src/db.ts`; platform code sees only these.
 */
export interface PlatformTables {
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
  workers: WorkersTable;
}
