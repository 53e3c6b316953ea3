// Test fixtures other packages' tests may use ('@plinth/media/test-support'); never part of the build.
export { boxDocument, glbBytes, gltfFiles, testIO } from './gltf/model-fixtures.test-support.js';
export { productScene, circle, roundedRect, prng } from './image/image-fixtures.test-support.js';
export { variantBoxDocument, VARIANT_COLOURS } from './gltf/variant-fixtures.test-support.js';
export { hostileModels } from './gltf/hostile-models.test-support.js';
export { renderSyntheticCapture } from './generate/posed-fixtures.test-support.js';
export { scanDocument, paintedTexture } from './delivery/delivery-fixtures.test-support.js';
