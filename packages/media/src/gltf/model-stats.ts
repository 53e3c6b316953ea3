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

/** Something about a model that a catalogue manager should look at; never a reason to refuse it. */
export interface ModelWarning {
  code: 'unusual_size';
  message: string;
}

/**
 * A product whose largest side is outside these bounds almost always has the wrong units
 * (millimetres or centimetres read as metres, or the reverse): a 30 cm parrot in millimetres
 * is 300 m tall. Real products rarely pass them: a ring is about 2 cm, a car under 6 m.
 */
export const UNUSUAL_SIZE = { minMetres: 0.01, maxMetres: 10 } as const;

function formatLength(metres: number): string {
  if (metres >= 1) return `${Number(metres.toPrecision(3))} m`;
  if (metres >= 0.01) return `${Number((metres * 100).toPrecision(3))} cm`;
  return `${Number((metres * 1000).toPrecision(3))} mm`;
}

/** Warnings from a model's measured size; an empty list when nothing looks wrong. */
export function modelWarnings(dimensions: ModelDimensions): ModelWarning[] {
  const largest = Math.max(dimensions.width, dimensions.height, dimensions.depth);
  const bound = largest > UNUSUAL_SIZE.maxMetres ? `larger than ${formatLength(UNUSUAL_SIZE.maxMetres)}` : largest < UNUSUAL_SIZE.minMetres ? `smaller than ${formatLength(UNUSUAL_SIZE.minMetres)}` : null;
  if (!bound) return [];
  return [
    {
      code: 'unusual_size',
      message:
        `The model is ${formatLength(largest)} across at its largest. Few products are ${bound}, so the file's units are probably not metres. ` +
        'Rescale the model to the real size of the product, or leave it if this size is right.',
    },
  ];
}
