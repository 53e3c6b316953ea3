import type { RequestOptions } from '../core/request.js';
import type { BeaconReceipt, ConversionParams } from '../types.js';
import type { APIPromise } from '../core/api-promise.js';
import { Resource } from './resource.js';

export class Conversions extends Resource {
  /** A conversion the shop's server saw (secret keys only); it counts as shopper traffic and in experiment results. */
  create(params: ConversionParams, options?: RequestOptions): APIPromise<BeaconReceipt> {
    return this.client.request('POST /v1/conversions', { body: params, options });
  }
}
