/**
 * The API's shapes as the dashboard reads them. Every one is the SDK's type, generated from the OpenAPI
 * document the server serves, or picked out of it by operation: no field is written out here by hand, so a
 * change in the API shows up in the dashboard as a type error instead of a silent lie.
 */
import type { Compliance, Image, Model, OperationKey, Operations, ViewerSettings } from '@plinth/sdk';

export type {
  ApiKey,
  Compliance,
  CreatedApiKey,
  Experiment,
  ExperimentResults,
  Image,
  ImageSettings,
  ModelWarning,
  Product,
  Project,
  PublishResult,
  Quote,
  Upload,
  UsageReport,
  ViewerSettings,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '@plinth/sdk';

type Op<K extends OperationKey> = Operations[K];

/** The JSON of an operation's 2xx answer. */
export type Answer<K extends OperationKey> = Op<K>['responses'][keyof Op<K>['responses']];

export type Me = Answer<'GET /dashboard/api/me'>;
export type Role = Me['organizations'][number]['role'];
export type Credits = Answer<'GET /dashboard/api/organizations/{org_id}/credits'>;
export type MemberList = Answer<'GET /dashboard/api/organizations/{org_id}/members'>;

export type ProductList = Answer<'GET /v1/products'>;
export type TagList = Answer<'GET /v1/products/tags'>;
export type ReviewStatus = Image['image_review_status'];
export type ComplianceCheck = Compliance['checks'][number];
export type ModelDelivery = NonNullable<Model['delivery']>;
export type Hotspot = NonNullable<ViewerSettings['hotspots']>[number];
export type CallToAction = NonNullable<ViewerSettings['ar_call_to_action']>;
/** The finishing a preview is drawn with: the preview's own query. */
export type PreviewSettings = Op<'GET /dashboard/api/products/{product_id}/images/{image_id}/preview'>['query'];

export type ApiKeyList = Answer<'GET /v1/api_keys'>;
export type ProjectList = Answer<'GET /v1/projects'>;
export type ExperimentList = Answer<'GET /v1/experiments'>;
export type WebhookEndpointList = Answer<'GET /v1/webhooks'>;
export type WebhookDeliveryList = Answer<'GET /v1/webhooks/{id}/deliveries'>;
