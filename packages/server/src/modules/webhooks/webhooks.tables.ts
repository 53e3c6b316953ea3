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

/** This module's tables, created by `webhooks.migration.ts`; `src/db.ts` adds them to the app's `DB`. */
export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_dispatch: WebhookDispatchTable;
}
