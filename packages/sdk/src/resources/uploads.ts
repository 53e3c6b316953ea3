import type { RequestOptions, UploadData } from '../core/request.js';
import type { Upload, UploadParams } from '../types.js';
import { Resource } from './resource.js';

export interface UploadCreateParams extends UploadParams {
  /** The image's type, e.g. `image/jpeg`. Default: the Blob's own type, else `application/octet-stream`. */
  contentType?: string;
}

export class Uploads extends Resource {
  /**
   * Stores an image (JPEG, PNG, WebP, AVIF or GIF; the API reads the type from the bytes) and
   * answers its `path`, to pass in `image_paths` when creating a product.
   */
  create(file: UploadData, params: UploadCreateParams = {}, options?: RequestOptions): Promise<Upload> {
    const { contentType, ...query } = params;
    const type = contentType || (typeof Blob !== 'undefined' && file instanceof Blob && file.type) || 'application/octet-stream';
    return this.client.request('POST /v1/uploads', { query, upload: { data: file, contentType: type }, options });
  }
}
