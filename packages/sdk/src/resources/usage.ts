import type { RequestOptions } from '../core/request.js';
import type { UsageParams, UsageReport } from '../types.js';
import type { APIPromise } from '../core/api-promise.js';
import { Resource } from './resource.js';

export class Usage extends Resource {
  /**
   * Counts per event type and bucket over a window (default: the last 30 days); `group_by` adds the top 20 products
   * (`product`), the split by device (`device`) or the top 20 page origins (`referrer`).
   */
  retrieve(params?: UsageParams, options?: RequestOptions): APIPromise<UsageReport> {
    return this.client.request('GET /v1/usage', { query: params, options });
  }
}
