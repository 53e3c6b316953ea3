import type { PagePromise } from '../core/pagination.js';
import type { RequestOptions } from '../core/request.js';
import type {
  Experiment,
  ExperimentCreateParams,
  ExperimentDeleted,
  ExperimentListParams,
  ExperimentOrgParams,
  ExperimentResults,
  ExperimentUpdateParams,
} from '../types.js';
import type { APIPromise } from '../core/api-promise.js';
import { Resource } from './resource.js';

/** 3D against the plain product image: `<service-model>` shows each viewer one arm while an experiment runs. */
export class Experiments extends Resource {
  /** Starts it at once. A product in another running experiment gives 409 `conflict` (reason `experiment_running`). */
  create(params: ExperimentCreateParams, options?: RequestOptions): APIPromise<Experiment> {
    return this.client.request('POST /v1/experiments', { body: params, options });
  }

  list(params?: ExperimentListParams, options?: RequestOptions): PagePromise<Experiment> {
    return this.client.list('GET /v1/experiments', { query: params, options });
  }

  retrieve(id: string, params?: ExperimentOrgParams, options?: RequestOptions): APIPromise<Experiment> {
    return this.client.request('GET /v1/experiments/{id}', { path: { id }, query: params, options });
  }

  update(id: string, params: ExperimentUpdateParams, options?: RequestOptions): APIPromise<Experiment> {
    return this.client.request('PATCH /v1/experiments/{id}', { path: { id }, body: params, options });
  }

  /** Every viewer sees 3D again; the webhook event `experiment.completed` carries the final results. */
  stop(id: string, params?: ExperimentOrgParams, options?: RequestOptions): APIPromise<Experiment> {
    return this.client.request('POST /v1/experiments/{id}/stop', { path: { id }, query: params, options });
  }

  delete(id: string, params?: ExperimentOrgParams, options?: RequestOptions): APIPromise<ExperimentDeleted> {
    return this.client.request('DELETE /v1/experiments/{id}', { path: { id }, query: params, options });
  }

  /** Per arm viewers, converters and rate with a 95% Wilson interval; the lift of 3d over poster, p-value and verdict. */
  results(id: string, params?: ExperimentOrgParams, options?: RequestOptions): APIPromise<ExperimentResults> {
    return this.client.request('GET /v1/experiments/{id}/results', { path: { id }, query: params, options });
  }
}
