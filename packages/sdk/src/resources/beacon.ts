import type { RequestOptions } from '../core/request.js';
import type { BeaconParams, BeaconReceipt } from '../types.js';
import type { APIPromise } from '../core/api-promise.js';
import { Resource } from './resource.js';

export class Beacon extends Resource {
  /**
   * Records view, ar_enter, ar_session_ended, interaction, variant_change, hotspot_open, ar_cta_tap and conversion
   * events (at most 100). With a secret key they count
   * as the organization's own (internal) traffic; a publishable key works from its allowed origins.
   */
  send(params: BeaconParams, options?: RequestOptions): APIPromise<BeaconReceipt> {
    return this.client.request('POST /v1/beacon', { body: params, options });
  }
}
