import type { PagePromise } from '../core/pagination.js';
import type { RequestOptions } from '../core/request.js';
import type { Project, ProjectCreateParams, ProjectListParams, ProjectUpdateParams } from '../types.js';
import type { APIPromise } from '../core/api-promise.js';
import { Resource } from './resource.js';

export class Projects extends Resource {
  list(params?: ProjectListParams, options?: RequestOptions): PagePromise<Project> {
    return this.client.list('GET /v1/projects', { query: params, options });
  }

  retrieve(id: string, options?: RequestOptions): APIPromise<Project> {
    return this.client.request('GET /v1/projects/{id}', { path: { id }, options });
  }

  /** `allowed_domains` are the web origins where the project's publishable keys work. */
  create(params: ProjectCreateParams, options?: RequestOptions): APIPromise<Project> {
    return this.client.request('POST /v1/projects', { body: params, options });
  }

  update(id: string, params: ProjectUpdateParams, options?: RequestOptions): APIPromise<Project> {
    return this.client.request('PATCH /v1/projects/{id}', { path: { id }, body: params, options });
  }
}
