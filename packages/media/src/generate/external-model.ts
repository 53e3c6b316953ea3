import type { Document } from '@gltf-transform/core';
import { getBounds } from '@gltf-transform/functions';
import { parseContainer } from '../gltf/model-container.js';
import { readDocument, writeGlb } from '../gltf/model-normalize.js';
import { countTriangles, displayScene } from '../gltf/model-stats.js';
import { validateGlb } from '../gltf/model-validate.js';
import { MediaError } from '../errors.js';
import { DEFAULT_TALLEST_SIDE_METRES, type GenerateResult } from './generator.js';

// Hosted generators answer in their own units and placement (often a unit cube around
// the origin). Before a downloaded model joins the catalogue it must be a valid GLB
// with triangles, and it is brought to our convention: metres, footprint centred,
// base on y = 0.

/** Sizes outside this range (metres) are taken as arbitrary units, not a real size. */
const PLAUSIBLE_METRES: [number, number] = [0.01, 10];
const PLACEMENT_ROOT = 'PlinthPlacement';

function invalid(message: string): MediaError {
  return new MediaError('external_invalid_model', message);
}

export async function normaliseExternalGlb(glb: Buffer, heightMetres: number | null): Promise<Omit<GenerateResult, 'method'>> {
  const report = await validateGlb(glb);
  if (report.errors > 0) {
    const first = report.messages.find((m) => m.severity === 0);
    throw invalid(`Generated model failed glTF validation with ${report.errors} error(s)` + (first ? `; first: ${first.code}: ${first.message}` : ''));
  }
  let doc: Document;
  try {
    doc = await readDocument(parseContainer(glb), new Map());
  } catch (err) {
    throw invalid(`Generated model could not be read: ${(err as Error).message}`);
  }
  let scene;
  try {
    scene = displayScene(doc);
  } catch {
    throw invalid('Generated model has no scene');
  }
  const triangles = countTriangles(scene);
  const { min, max } = getBounds(scene);
  const size = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
  if (triangles === 0 || !size.every((v) => Number.isFinite(v)) || !(size[1] > 0) || !(Math.max(...size) > 0)) {
    throw invalid('Generated model has no visible triangle geometry');
  }

  const tallest = Math.max(...size);
  const scale = heightMetres
    ? heightMetres / size[1]
    : tallest < PLAUSIBLE_METRES[0] || tallest > PLAUSIBLE_METRES[1]
      ? DEFAULT_TALLEST_SIDE_METRES / tallest
      : 1;
  const offset: [number, number, number] = [-(min[0] + max[0]) / 2, -min[1], -(min[2] + max[2]) / 2];
  const dimensions = { width: size[0] * scale, height: size[1] * scale, depth: size[2] * scale };
  // Already in place: hand the service's bytes through untouched.
  if (Math.abs(scale - 1) < 1e-6 && offset.every((v) => Math.abs(v) < 1e-4)) return { glb, dimensions, triangles };

  // One wrapper node instead of touching the roots' own transforms, so animations that
  // drive those keep working: world = scale · (p + offset).
  const wrapper = doc
    .createNode(PLACEMENT_ROOT)
    .setScale([scale, scale, scale])
    .setTranslation([offset[0] * scale, offset[1] * scale, offset[2] * scale]);
  for (const child of scene.listChildren()) {
    scene.removeChild(child);
    wrapper.addChild(child);
  }
  scene.addChild(wrapper);
  return { glb: await writeGlb(doc), dimensions, triangles };
}
