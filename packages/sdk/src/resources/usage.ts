import type { RequestOptions } from '../core/request.js';
import type { UsageParams, UsageReport } from '../types.js';
import type { APIPromise } from '../core/api-promise.js';
import { Resource } from './resource.js';

export class Usage extends Resource {
  /** Views and AR sessions per bucket over a window (default: the last 30 days); `group_by: 'product'` adds the top 20. */
  retrieve(params?: UsageParams, options?: RequestOptions): APIPromise<UsageReport> {
    return this.client.request('GET /v1/usage', { query: params, options });
  }
}
