import type { RequestOptions, UploadData } from '../core/request.js';
import type { Upload, UploadParams } from '../types.js';
import type { APIPromise } from '../core/api-promise.js';
import { Resource } from './resource.js';

export interface UploadCreateParams extends UploadParams {
  /** The file's type, e.g. `image/jpeg` or `model/gltf-binary`. Default: the Blob's own type, else `application/octet-stream`. */
  contentType?: string;
}

export class Uploads extends Resource {
  /**
   * Stores an image (JPEG, PNG, WebP, AVIF or GIF) or a GLB model; the API checks the file by decoding
   * it. Answers its `path`, to pass in `image_paths` (images) or `model_path` (a model) when creating a
   * product. Uploads are private to the organization and count against its upload quota; one that no
   * product uses is deleted after 24 hours.
   */
  create(file: UploadData, params: UploadCreateParams = {}, options?: RequestOptions): APIPromise<Upload> {
    const { contentType, ...query } = params;
    const type = contentType || (typeof Blob !== 'undefined' && file instanceof Blob && file.type) || 'application/octet-stream';
    return this.client.request('POST /v1/uploads', { query, upload: { data: file, contentType: type }, options });
  }
}
