/** What other modules may use of `products`; nothing else of the folder is theirs to touch. */
export { budgetsFromJson, cutoutOf, modelUrl, productJson, servedQuality, usdzVariantUrls, type BudgetsJson } from './products.json.js';
export { imagesFailed, imagesIngested, isModelInFlight, modelFailed, modelGenerating, modelReady, modelReplacementFailed, modelReplacementQueued, productChanged, rendersReady, reportProgress, titleFound } from './products.lifecycle.js';
export { ComplianceSchema, DeliveryBudgetsSchema, ListQuerySchema, ProductSchema, ProductStatusSchema, ReviewStatusSchema } from './products.schemas.js';
export { addImages, filterFrom, findProduct, findProductRow, getProduct, imagesOf, loadProduct, productIdsMatching, toProductRecord, updateImage, type ListQuery } from './products.service.js';
export { type ImageOrigin, type ImageRecord, type ModelQualityRecord, type ModelWarningRecord, type ProblemInfo, type ProductRecord, type ProductStatus, type ReviewStatus, type StoredDelivery, type StoredModel, type ViewerSettings } from './products.types.js';
export { generateModelJob, ingestModelJob, redeliverModelJob, renderImagesJob, ingestImagesJob, ingestPageJob, ingestVideoJob, type IngestData, type OrderData } from './pipeline.job-defs.js';
