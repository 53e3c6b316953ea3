// Module order is evaluation order: the guard is in place before model-viewer registers itself.
import { releaseDefineGuard } from './define-guard.js';
import '@google/model-viewer';
import { defineServiceModel } from './service-model.js';

releaseDefineGuard();
defineServiceModel();

export { ServiceModelElement } from './service-model.js';
export type { ServiceModelEventMap, ServiceModelErrorReason, ServiceModelState } from './service-model.js';
