/** What other modules may use of `ingest`; nothing else of the folder is theirs to touch. */
export { storeModel, storedModel } from './ingest-model.js';
export { failureProblem } from './ingest.problems.js';
export { storeImageFiles, type StoredImage } from './ingest.store.js';
export { InputRejected } from './input-rejected.js';
export { deleteModelFiles } from './model-delivery.js';
export { masterKeyOf } from './model-redeliver.js';
export { warmPosterRenderer } from './model-poster.js';
