import type { AttemptRecord, DeliveryRecord, EndpointRecord } from './webhooks.types.js';

/** The endpoint as the API shows it; the secret never appears here (only on create and rotate). */
export function endpointJson(e: EndpointRecord) {
  return {
    object: 'webhook_endpoint' as const,
    id: e.id,
    org_id: e.orgId,
    url: e.url,
    description: e.description,
    events: e.events,
    enabled: e.enabled,
    disabled_reason: e.disabledReason,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

export function attemptJson(a: AttemptRecord) {
  return {
    attempt: a.number,
    started_at: a.startedAt,
    finished_at: a.finishedAt,
    duration_ms: a.durationMs,
    response_status: a.responseStatus,
    error: a.error,
    next_attempt_at: a.nextAttemptAt,
  };
}

export function deliveryJson(d: DeliveryRecord, attempts: AttemptRecord[]) {
  return {
    object: 'webhook_delivery' as const,
    id: d.id,
    endpoint_id: d.endpointId,
    org_id: d.orgId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    failure_reason: d.failureReason,
    attempt_count: d.attemptCount,
    last_response_status: d.lastResponseStatus,
    next_attempt_at: d.status === 'pending' ? d.nextAttemptAt : null,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    attempts: attempts.map(attemptJson),
  };
}
