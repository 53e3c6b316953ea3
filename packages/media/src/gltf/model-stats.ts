import { Primitive, type Document, type Node, type Scene } from '@gltf-transform/core';
import { MediaError } from '../errors.js';
import { restPoseBounds } from './model-bounds.js';
import type { ModelDimensions } from './model-pipeline.js';

/** The scene a viewer shows: the declared default, else the first one. */
export function displayScene(doc: Document): Scene {
  const root = doc.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  if (!scene) throw new MediaError('empty_model', 'Model has no scene to display');
  return scene;
}

export function measureDimensions(scene: Scene): ModelDimensions {
  // Skinned meshes are measured through their joints at rest, as viewers draw them.
  const { min, max } = restPoseBounds(scene);
  const size = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
  // The bounds stay ±Infinity when no node in the scene carries a mesh.
  if (!size.every((v) => Number.isFinite(v))) {
    throw new MediaError('empty_model', 'Model scene contains no geometry');
  }
  return { width: size[0], height: size[1], depth: size[2] };
}

/** Triangles of one primitive, whatever its topology; 0 for points and lines. */
export function primitiveTriangles(prim: Primitive): number {
  const indices = prim.getIndices();
  const position = prim.getAttribute('POSITION');
  const n = indices ? indices.getCount() : position ? position.getCount() : 0;
  switch (prim.getMode()) {
    case Primitive.Mode.TRIANGLES:
      return Math.floor(n / 3);
    case Primitive.Mode.TRIANGLE_STRIP:
    case Primitive.Mode.TRIANGLE_FAN:
      return Math.max(0, n - 2);
    default:
      return 0;
  }
}

/** Triangles as rendered: a mesh used by three nodes is counted three times. */
export function countTriangles(scene: Scene): number {
  let total = 0;
  scene.traverse((node: Node) => {
    const mesh = node.getMesh();
    if (!mesh) return;
    for (const prim of mesh.listPrimitives()) total += primitiveTriangles(prim);
  });
  return total;
}
