// The media engine's one public entry: what the server may call. Nothing here knows HTTP, SQL, tenants or jobs.
export { MediaError, type MediaErrorReason, MEDIA_ERROR_REASONS, isMediaError, isMediaRefusal } from './errors.js';

// Shared helpers the server uses too, so there is one of each.
export { mapLimit, DECODE_CONCURRENCY } from './util/map-limit.js';
export { sniffImageFormat, type AcceptedFormat } from './image/image-formats.js';

// Images: decode, check, mask, analyse.
export { processImage, type ProcessedImage, type ProcessImageOptions, type ImageAnalysis } from './image/image-pipeline.js';
export { BLURRY_THRESHOLD, isBlurry, sharpness } from './image/sharpness.js';

// The cut-out: IS-Net or classical behind one interface.
export {
  chooseSegmenter,
  describeSegmenter,
  segmentImage,
  segmentRgb,
  locateModel,
  loadModelBytes,
  modelPackageDir,
  MODEL_PACKAGE,
  type CutoutInfo,
  type CutoutMethod,
  type CutoutStatus,
  type CutoutEvidence,
  type SegmenterChoice,
  type SegmenterKind,
  type SegmentResult,
} from './segment/segment.js';
// Synthetic product photos with exact ground truth, for the cut-out's tests and bench.
export { DISTRACTOR_KINDS, makeDistractorScene, type DistractorKind } from './segment/distractor-scenes.js';
export { SCENES as CUTOUT_SCENES, EMPTY_SCENES as CUTOUT_EMPTY_SCENES, makeScene as makeCutoutScene, iou as maskIou } from './segment/synthetic-scenes.js';

// Video frames and product pages.
export { extractFrames, type ExtractFramesOptions } from './video/video-frames.js';
export { extractProduct, type PageProduct } from './page/page-extract.js';

// Models: validate, normalise, rescale, stats, USDZ.
export {
  processModel,
  processModelBuffer,
  rescaleModel,
  validateGlb,
  DEFAULT_MODEL_CAPS,
  type FetchBytes,
  type ModelCaps,
  type ModelDimensions,
  type ProcessedModel,
  type ProcessModelOptions,
  type RescaleTarget,
} from './gltf/model-pipeline.js';
export { modelWarnings, UNUSUAL_SIZE, type ModelWarning } from './gltf/model-stats.js';
export { meshCodecIO, type MeshCompression } from './gltf/model-compression.js';

// Deliveries: web, mobile and USDZ files made from the master within budgets, checked by rendered SSIM.
export { makeDeliveries, type DeliveryFile, type DeliveryOptions, type DeliveryResult, type DeliveryWarning } from './delivery/deliveries.js';
export {
  DEFAULT_DELIVERY_BUDGETS,
  DELIVERY_NAMES,
  resolveBudgets,
  withinBudget,
  type DeliveryBudget,
  type DeliveryBudgetOverrides,
  type DeliveryBudgets,
  type DeliveryName,
} from './delivery/delivery-budgets.js';
export { warmViewRenderer, SSIM_FLOOR, FIDELITY_VIEWS, type ViewRenderer } from './delivery/delivery-fidelity.js';
export { ssimGray, ssimRgba } from './delivery/ssim.js';

// 3D generation.
export type { Generator, GeneratorView, GenerateHints, GenerateResult, ProgressFn } from './generate/generator.js';
export { createBuiltinGenerator } from './generate/builtin-generator.js';
export {
  createExternalGenerator,
  ExternalServiceUnavailable,
  type ExternalFetch,
  type ExternalGeneratorOptions,
  type ExternalResponse,
} from './generate/external-generator.js';

// The capture mat: the printable board, and cameras with real scale from photos that show it.
export { captureMatPdf, MAT_CAPTION } from './mat/mat-pdf.js';
export { recoverCamerasFromMat, MIN_MAT_VIEWS } from './mat/mat-poses.js';

// Renders and finishing.
export { descendants, killAllGroups, killGroup, killTree, spawnInGroup, treeMemoryMb } from './process-group.js';
export { closeRenderer, renderTurntable, warmRenderer, type RenderOptions } from './render/renders.js';
export { RENDERS_PER_BROWSER, WarmRenderer, type RenderJob } from './render/warm-renderer.js';
export {
  finishImage,
  resolveSettings,
  settingsCacheKey,
  DEFAULT_SIZE,
  DEFAULT_SETTINGS,
  MIN_SIDE,
  MAX_SIDE,
  MIN_FILL,
  MAX_FILL,
  type CanvasSize,
  type FinishInput,
  type FinishedImage,
  type ImageFormat,
  type ImageSettings,
  type ImageSettingsInput,
  type ShadowStyle,
} from './finish/finish.js';
export { PRESETS, PRESET_NAMES, isPresetName, type Preset, type PresetName } from './finish/presets.js';
export {
  evaluateCompliance,
  failedCodes,
  COMPLIANCE_CODES,
  type Compliance,
  type ComplianceCheck,
  type ComplianceCode,
  type FinishMeasurements,
} from './finish/compliance.js';

// The sandbox's table of operations (names, inputs, outputs) and the child's message protocol.
export {
  MEDIA_OPS,
  runMediaOp,
  type MediaHost,
  type MediaOps,
  type MediaOpName,
  type MediaOpInput,
  type MediaOpOutput,
} from './sandbox/ops.js';
export type { FromChild, ToChild, SerialisedError } from './sandbox/protocol.js';
export { packLarge, unpackLarge } from './sandbox/transfer.js';
