/**
 * Friendly names for the request and response types, all taken from the generated OpenAPI types,
 * so that a change in the API's schemas shows up here as a type error instead of a silent lie.
 */
import type { Operations, OperationKey, Product } from './generated/openapi.js';
import type { Success } from './core/request.js';

export type {
  ApiKey,
  Compliance,
  CreatedApiKey,
  ErrorEnvelope,
  Health as HealthReport,
  Image,
  ImageSettings,
  Model,
  ModelQuality,
  ModelWarning,
  Product,
  Project,
  PublicProduct,
  QueuedExport,
  Quote,
  Upload,
  Usage as UsageReport,
  ViewerSettings,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointRotatedSecret,
  WebhookEndpointWithSecret,
} from './generated/openapi.js';
export type { Operations, OperationKey } from './generated/openapi.js';

type Query<K extends OperationKey> = NonNullable<Operations[K]['query']>;
type Body<K extends OperationKey> = Operations[K]['body'];

// Products
export type ProductListParams = Query<'GET /v1/products'>;
export type ProductCreateParams = Body<'POST /v1/products'>;
/** The sources that are quoted first; `model_url` and `model_path` import at once and `resume_token` commits. */
export type ProductQuoteParams = Omit<ProductCreateParams, 'resume_token' | 'model_url' | 'model_path'>;
/** A commit may repeat the quoted fields; a field that differs from the quote is refused (400 quote_changed). */
export type ProductCommitParams = Omit<ProductCreateParams, 'resume_token' | 'image_urls' | 'video_url' | 'source_url' | 'model_url' | 'image_paths' | 'model_path'>;
export type ProductUpdateParams = Body<'PATCH /v1/products/{id}'>;
export type ProductDeleted = Success<'DELETE /v1/products/{id}'>;
export type ProductsDeleted = Success<'DELETE /v1/products'>;
export type ProductPublishParams = Body<'POST /v1/products/publish'>;
export type PublishResult = Success<'POST /v1/products/publish'>;
export type TagListParams = Query<'GET /v1/products/tags'>;
export type TagCount = Success<'GET /v1/products/tags'>['data'][number];
export type ProductExportParams = Query<'GET /v1/products/export'>;
export type ReviewParams = Body<'POST /v1/products/{id}/review'>;
export type ImageUpdateParams = Body<'PATCH /v1/products/{id}/images/{image_id}'>;
export type ModelUpdateParams = Body<'PATCH /v1/products/{id}/model'>;
export type RescaleParams = Body<'POST /v1/products/{id}/model/rescale'>;

// Uploads, analytics
export type UploadParams = Query<'POST /v1/uploads'>;
export type UsageParams = Query<'GET /v1/usage'>;
export type BeaconParams = Body<'POST /v1/beacon'>;
export type BeaconEvent = BeaconParams['events'][number];
export type BeaconReceipt = Success<'POST /v1/beacon'>;

// Webhooks
export type WebhookListParams = Query<'GET /v1/webhooks'>;
export type WebhookCreateParams = Body<'POST /v1/webhooks'>;
export type WebhookUpdateParams = Body<'PATCH /v1/webhooks/{id}'>;
export type WebhookOrgParams = Query<'GET /v1/webhooks/{id}'>;
export type WebhookDeleted = Success<'DELETE /v1/webhooks/{id}'>;
export type DeliveryListParams = Query<'GET /v1/webhooks/{id}/deliveries'>;
/** What an endpoint can subscribe to; `*` is every type, including types added later. */
export type WebhookSubscription = NonNullable<WebhookCreateParams['events']>[number];
export type WebhookEventType = Exclude<WebhookSubscription, '*'>;

/** `data.object` of a `product.deleted` event: the product is gone, only its id remains. */
export interface DeletedProductObject {
  object: 'product';
  id: string;
  deleted: true;
}

/** `data.object` of `export.ready`: the link is also mailed to the export's `notify_email`. */
export interface ExportReadyObject {
  id: string;
  images: number;
  download_url: string;
}

/** `data.object` of `webhook.test`, sent only by `POST /v1/webhooks/{id}/test` to that endpoint. */
export interface WebhookTestObject {
  object: 'webhook_test';
  endpoint_id: string;
  message: string;
}

/**
 * `data.object` per event type (docs/webhooks.md, "Catalogue"). Every `product.*` event but `product.deleted`
 * carries the whole product as `GET /v1/products/{id}` answers a secret key, read when the event happened.
 */
export interface WebhookEventObjects {
  'product.created': Product;
  'product.updated': Product;
  'product.published': Product;
  'product.model.ready': Product;
  'product.model.failed': Product;
  'product.images.ready': Product;
  'product.deleted': DeletedProductObject;
  'export.ready': ExportReadyObject;
  'webhook.test': WebhookTestObject;
}

// A new event type in the API without an entry above fails to compile here.
type _EveryTypeHasAnObject = WebhookEventObjects[WebhookEventType];

/**
 * What a delivery's body holds: a union discriminated on `type`, so `switch (event.type)` narrows
 * `event.data.object` to the product, the deleted id, the export or the test message.
 */
export type WebhookEvent<T extends keyof WebhookEventObjects = keyof WebhookEventObjects> = {
  [K in T]: { id: string; type: K; created_at: string; org_id: string; data: { object: WebhookEventObjects[K] } };
}[T];

// Keys, projects
export type ApiKeyListParams = Query<'GET /v1/api_keys'>;
export type ApiKeyCreateParams = Body<'POST /v1/api_keys'>;
export type ProjectListParams = Query<'GET /v1/projects'>;
export type ProjectCreateParams = Body<'POST /v1/projects'>;
export type ProjectUpdateParams = Body<'PATCH /v1/projects/{id}'>;
