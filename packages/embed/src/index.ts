// Module order is evaluation order: the guard is in place before model-viewer registers itself.
import { releaseDefineGuard } from './define-guard.js';
import '@google/model-viewer';
import { configureDecoders } from './features/decoders.js';
import { defineServiceModel } from './service-model.js';

releaseDefineGuard();
// Before any element exists: model-viewer reads the decoder locations when each one is created.
configureDecoders(import.meta.url);
defineServiceModel();

export { ServiceModelElement } from './service-model.js';
export type { ServiceModelEventMap, ServiceModelErrorReason, ServiceModelState } from './service-model.js';
