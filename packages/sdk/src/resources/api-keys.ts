import type { PagePromise } from '../core/pagination.js';
import type { RequestOptions } from '../core/request.js';
import type { ApiKey, ApiKeyCreateParams, ApiKeyListParams, CreatedApiKey } from '../types.js';
import type { APIPromise } from '../core/api-promise.js';
import { Resource } from './resource.js';

export class ApiKeys extends Resource {
  /** Keys show their prefix, never the key itself. */
  list(params?: ApiKeyListParams, options?: RequestOptions): PagePromise<ApiKey> {
    return this.client.list('GET /v1/api_keys', { query: params, options });
  }

  /** Owners and admins only. The key material is in `key`, in this answer only: store it now. */
  create(params: ApiKeyCreateParams = {}, options?: RequestOptions): APIPromise<CreatedApiKey> {
    return this.client.request('POST /v1/api_keys', { body: params, options });
  }

  /** A revoked key answers 401 from then on. */
  revoke(id: string, options?: RequestOptions): APIPromise<ApiKey> {
    return this.client.request('DELETE /v1/api_keys/{id}', { path: { id }, options });
  }
}
