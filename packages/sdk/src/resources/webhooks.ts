import type { Plinth } from '../client.js';
import { WebhookVerificationError } from '../core/errors.js';
import type { PagePromise } from '../core/pagination.js';
import type { RequestOptions } from '../core/request.js';
import { verifySignature, type VerifyOptions, type WebhookHeaders, type WebhookPayload } from '../core/webhook-signature.js';
import type {
  DeliveryListParams,
  WebhookCreateParams,
  WebhookDeleted,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointRotatedSecret,
  WebhookEndpointWithSecret,
  WebhookEvent,
  WebhookListParams,
  WebhookOrgParams,
  WebhookUpdateParams,
} from '../types.js';
import type { APIPromise } from '../core/api-promise.js';
import { Resource } from './resource.js';

/** Writes to one endpoint may name its organization; otherwise every organization the key reaches is searched. */
type OrgParams = WebhookOrgParams;

export class WebhookDeliveries extends Resource {
  /** Newest first, each with its attempts; filter with `status: ['failed']`. */
  list(webhookId: string, params?: DeliveryListParams, options?: RequestOptions): PagePromise<WebhookDelivery> {
    return this.client.list('GET /v1/webhooks/{id}/deliveries', { path: { id: webhookId }, query: params, options });
  }

  /** Sends a delivery again now; answers it, pending. 409 while the endpoint is disabled. */
  retry(webhookId: string, deliveryId: string, params?: OrgParams, options?: RequestOptions): APIPromise<WebhookDelivery> {
    return this.client.request('POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry', {
      path: { id: webhookId, delivery_id: deliveryId },
      query: params,
      options,
    });
  }
}

export class Webhooks extends Resource {
  readonly deliveries: WebhookDeliveries;

  constructor(client: Plinth) {
    super(client);
    this.deliveries = new WebhookDeliveries(client);
  }

  list(params?: WebhookListParams, options?: RequestOptions): PagePromise<WebhookEndpoint> {
    return this.client.list('GET /v1/webhooks', { query: params, options });
  }

  /** The answer carries the signing `secret`, shown only here and on rotateSecret(): store it now. */
  create(params: WebhookCreateParams, options?: RequestOptions): APIPromise<WebhookEndpointWithSecret> {
    return this.client.request('POST /v1/webhooks', { body: params, options });
  }

  retrieve(id: string, params?: OrgParams, options?: RequestOptions): APIPromise<WebhookEndpoint> {
    return this.client.request('GET /v1/webhooks/{id}', { path: { id }, query: params, options });
  }

  /** `enabled: false` ends the pending deliveries; `true` resumes with new events. `org_id` goes in the query. */
  update(id: string, params: WebhookUpdateParams & OrgParams, options?: RequestOptions): APIPromise<WebhookEndpoint> {
    const { org_id, ...body } = params;
    return this.client.request('PATCH /v1/webhooks/{id}', { path: { id }, query: org_id ? { org_id } : undefined, body, options });
  }

  /** Its deliveries go with it. */
  delete(id: string, params?: OrgParams, options?: RequestOptions): APIPromise<WebhookDeleted> {
    return this.client.request('DELETE /v1/webhooks/{id}', { path: { id }, query: params, options });
  }

  /**
   * Sends a signed `webhook.test` event to this endpoint only, to check a receiver end to end. Answers the
   * delivery, pending; it shows in the deliveries list. 409 while the endpoint is disabled.
   */
  test(id: string, params?: OrgParams, options?: RequestOptions): APIPromise<WebhookDelivery> {
    return this.client.request('POST /v1/webhooks/{id}/test', { path: { id }, query: params, options });
  }

  /** A new secret; for 24 h deliveries are signed with both, so receivers can switch without losing any. */
  rotateSecret(id: string, params?: OrgParams, options?: RequestOptions): APIPromise<WebhookEndpointRotatedSecret> {
    return this.client.request('POST /v1/webhooks/{id}/rotate_secret', { path: { id }, query: params, options });
  }

  /**
   * The event in a delivery, once its signature proves it came from your Plinth with this secret
   * and it is fresh (5 minutes either way). Pass the raw body, as received; throws a
   * WebhookVerificationError otherwise.
   */
  async verify(payload: WebhookPayload, headers: WebhookHeaders, secret: string, options?: VerifyOptions): Promise<WebhookEvent> {
    const text = await verifySignature(payload, headers, secret, options);
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch {
      throw new WebhookVerificationError('The webhook body is not JSON.', 'invalid_payload');
    }
    const e = event as Partial<WebhookEvent> | null;
    if (!e || typeof e.id !== 'string' || typeof e.type !== 'string' || typeof e.data !== 'object') {
      throw new WebhookVerificationError('The webhook body is not a Plinth event.', 'invalid_payload');
    }
    return e as WebhookEvent;
  }
}
