import type { RequestOptions } from '../core/request.js';
import type { HealthReport } from '../types.js';
import type { APIPromise } from '../core/api-promise.js';
import { Resource } from './resource.js';

export class Health extends Resource {
  /** The API and its dependencies; a database outage answers 503 (an InternalServerError). */
  retrieve(options?: RequestOptions): APIPromise<HealthReport> {
    return this.client.request('GET /v1/health', { options });
  }
}
