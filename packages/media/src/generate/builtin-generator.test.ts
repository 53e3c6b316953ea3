import { NodeIO } from '@gltf-transform/core';
import { getBounds } from '@gltf-transform/functions';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateGlb } from '../gltf/model-validate.js';
import { createBuiltinGenerator } from './builtin-generator.js';
import { MediaError } from '../errors.js';
import { type GenerateResult, type GeneratorView } from './generator.js';
import { renderFlat, renderTurntable, renderView, type Shape } from './turntable-fixtures.test-support.js';

const BOX: Shape = { kind: 'box', width: 0.4, height: 0.3, depth: 0.2 };
const CYLINDER: Shape = { kind: 'cylinder', radius: 0.1, height: 0.3 };
const RENDER = { views: 8, size: 512, pixelsPerMetre: 1000 };

async function inspect(result: GenerateResult) {
  const doc = await new NodeIO().readBinary(new Uint8Array(result.glb));
  const scene = doc.getRoot().getDefaultScene()!;
  const { min, max } = getBounds(scene);
  const materials = doc.getRoot().listMaterials();
  const triangles = doc
    .getRoot()
    .listMeshes()
    .flatMap((m) => m.listPrimitives())
    .reduce((n, p) => n + p.getIndices()!.getCount() / 3, 0);
  return { min, max, materials, triangles, validation: await validateGlb(result.glb) };
}

function blankMask(width: number, height: number): Promise<Buffer> {
  return sharp(Buffer.alloc(width * height), { raw: { width, height, channels: 1 } }).toColourspace('b-w').png().toBuffer();
}

function relativeError(actual: number, expected: number): number {
  return Math.abs(actual / expected - 1);
}

/** Logs the size against the truth and expects every side within 5%. */
function expectSize(label: string, result: GenerateResult, truth: { width: number; height: number; depth: number }) {
  const sides = (['width', 'height', 'depth'] as const).map((side) => ({ side, value: result.dimensions[side], error: relativeError(result.dimensions[side], truth[side]) }));
  console.info(`${label}: ${sides.map((s) => `${s.side} ${s.value.toFixed(4)} (${(s.error * 100).toFixed(3)}%)`).join(', ')}, ${result.triangles} triangles`);
  for (const s of sides) expect(s.error, s.side).toBeLessThan(0.05);
}

/** A turntable hull is checked like any carved model: it agrees with its photos and is one piece. */
function expectChecked(result: GenerateResult, viewsUsed: number) {
  expect(result.quality).toMatchObject({ method: 'turntable_hull', pose_source: 'assumed', views_used: viewsUsed });
  expect(result.quality!.silhouette_iou!.median).toBeGreaterThanOrEqual(0.85);
  expect(result.quality!.largest_piece).toBeGreaterThanOrEqual(0.95);
}

describe('built-in generator: visual hull', () => {
  const generator = createBuiltinGenerator();
  let boxViews: GeneratorView[];
  let cylinderViews: GeneratorView[];

  beforeAll(async () => {
    [boxViews, cylinderViews] = await Promise.all([renderTurntable(BOX, RENDER), renderTurntable(CYLINDER, RENDER)]);
  });

  it('carves a box from 8 turntable views to within 5% of its size, valid and under budget', async () => {
    const steps: number[] = [];
    const result = await generator.generate(boxViews, { heightMetres: 0.3 }, (percent) => {
      steps.push(percent);
    });
    expect(result.method).toBe('visual_hull');
    expectSize('box', result, { width: 0.4, height: 0.3, depth: 0.2 });
    expectChecked(result, 8);
    const { width } = result.dimensions;
    expect(result.triangles).toBeLessThanOrEqual(20_000);
    expect(result.triangles).toBeGreaterThan(12);

    const glb = await inspect(result);
    expect(glb.validation.errors).toBe(0);
    expect(glb.triangles).toBe(result.triangles);
    // Base on the floor, footprint centred, and the reported size is the file's.
    expect(glb.min[1]).toBeCloseTo(0, 6);
    expect(glb.min[0] + glb.max[0]).toBeCloseTo(0, 6);
    expect(glb.min[2] + glb.max[2]).toBeCloseTo(0, 6);
    expect(glb.max[0] - glb.min[0]).toBeCloseTo(width, 5);
    const [material] = glb.materials;
    expect(material.getBaseColorTexture()?.getMimeType()).toBe('image/jpeg');
    expect(material.getMetallicFactor()).toBe(0);
    expect(material.getRoughnessFactor()).toBeCloseTo(0.8);
    // Progress only moves forward and finishes.
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(steps.at(-1)).toBe(100);
  });

  it('carves a cylinder to within 5% of its diameter and height', async () => {
    const result = await generator.generate(cylinderViews, { heightMetres: 0.3 });
    expectSize('cylinder', result, { width: 0.2, height: 0.3, depth: 0.2 });
    expectChecked(result, 8);
    expect(result.triangles).toBeLessThanOrEqual(20_000);
    const glb = await inspect(result);
    expect(glb.validation.errors).toBe(0);
  });

  it('keeps a small triangle budget and texture size', async () => {
    const result = await generator.generate(cylinderViews, { heightMetres: 0.3, triangleBudget: 1500, textureSize: 256 });
    expect(result.triangles).toBeLessThanOrEqual(1500);
    const glb = await inspect(result);
    expect(glb.validation.errors).toBe(0);
    const image = glb.materials[0].getBaseColorTexture()!.getImage()!;
    const meta = await sharp(image).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(256);
    expect(relativeError(result.dimensions.width, 0.2)).toBeLessThan(0.05);
  });

  it('without a height, makes the tallest side 0.3 m and keeps the proportions', async () => {
    const result = await generator.generate(boxViews, {});
    const { width, height, depth } = result.dimensions;
    expect(Math.max(width, height, depth)).toBeCloseTo(0.3, 6);
    expect(relativeError(width / height, 0.4 / 0.3)).toBeLessThan(0.05);
    expect(relativeError(depth / height, 0.2 / 0.3)).toBeLessThan(0.05);
  });

  it('uses the azimuths it is given instead of equal steps', async () => {
    // Eight photos at unequal steps, named by angle.
    const azimuthsDeg = [0, 30, 90, 135, 180, 225, 270, 315];
    const picked = await Promise.all(azimuthsDeg.map((a) => renderView(BOX, a, RENDER)));
    const result = await generator.generate(picked, { heightMetres: 0.3, azimuthsDeg });
    expect(result.method).toBe('visual_hull');
    expect(relativeError(result.dimensions.width, 0.4)).toBeLessThan(0.05);
    expect(relativeError(result.dimensions.depth, 0.2)).toBeLessThan(0.05);
    expect(result.quality?.coverage?.largest_gap_deg).toBeCloseTo(60, 0);
  });

  it('refuses a turntable of fewer than 8 photos: a hull from few photos agrees with almost anything', async () => {
    const picked = [0, 1, 2, 4].map((i) => boxViews[i]);
    const run = generator.generate(picked, { heightMetres: 0.3, azimuthsDeg: [0, 45, 90, 180] });
    await expect(run).rejects.toMatchObject({ reason: 'poses_not_found', details: { views_placed: 4, views_needed: 8 } });
  });

  it('refuses photos that leave one side of the product unseen (partial_coverage)', async () => {
    // Eight photos over the front half only: the back is never seen.
    const azimuthsDeg = [0, 20, 40, 60, 80, 100, 120, 140].map((a) => a - 70);
    const picked = await Promise.all(azimuthsDeg.map((a) => renderView(BOX, a, RENDER)));
    const run = generator.generate(picked, { heightMetres: 0.3, azimuthsDeg });
    await expect(run).rejects.toMatchObject({ reason: 'partial_coverage' });
    const error = (await run.catch((e: unknown) => e)) as MediaError;
    console.info('half turntable', error.message);
    // The arc runs from the last photo round to the first; photos 4 and 5 (at -10° and 10°) face away from it.
    expect(error.message).toMatch(/220\u00b0 arc, between photos (8 and 1|1 and 8) \(the side facing away from photo [45]\)/);
  });

  it('carves a box photographed from 20° above to within 5%', async () => {
    const views = await renderTurntable(BOX, { ...RENDER, elevationDeg: 20 });
    const result = await generator.generate(views, { heightMetres: 0.3, elevationDeg: 20 });
    expectSize('box at 20°', result, { width: 0.4, height: 0.3, depth: 0.2 });
    expectChecked(result, 8);
    expect((await inspect(result)).validation.errors).toBe(0);
  });

  it('skips views with empty masks and carves from the rest', async () => {
    const blank = await blankMask(512, 512);
    const nine = await renderTurntable(BOX, { ...RENDER, views: 9 });
    const views = nine.map((v, i) => (i === 3 ? { ...v, mask: blank } : v));
    const result = await generator.generate(views, { heightMetres: 0.3 });
    expect(result.method).toBe('visual_hull');
    expect(relativeError(result.dimensions.width, 0.4)).toBeLessThan(0.05);
  });

  it('refuses a turntable model that disagrees with its photos (views out of order)', async () => {
    // Every other photo moved to the back half: each view is carved at an angle it was not taken from.
    const shuffled = [0, 2, 4, 6, 1, 3, 5, 7].map((i) => boxViews[i]);
    const run = generator.generate(shuffled, { heightMetres: 0.3 });
    await expect(run).rejects.toMatchObject({ reason: 'inconsistent_views' });
    const error = (await run.catch((e: unknown) => e)) as MediaError;
    console.info('shuffled turntable', error.message);
    expect(error.details).toMatchObject({ quality: { method: 'turntable_hull', views_used: 8 } });
  });

  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    const run = generator.generate(boxViews, { heightMetres: 0.3 }, (percent) => {
      if (percent >= 10) controller.abort();
    }, controller.signal);
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('built-in generator: relief card and failures', () => {
  const generator = createBuiltinGenerator();

  it('turns one view of a poster into a card with the poster’s aspect ratio', async () => {
    const poster = await renderFlat({ width: 800, height: 1100 }, { width: 600, height: 900 });
    const result = await generator.generate([poster], { heightMetres: 0.9 });
    expect(result.method).toBe('relief_card');
    // One photo has no depth to check: the record says how it was made and that nothing was compared.
    expect(result.quality).toEqual({
      method: 'relief_card',
      pose_source: 'assumed',
      views_used: 1,
      views_total: 1,
      coverage: null,
      heldout_iou: null,
      silhouette_iou: null,
      stereo_coverage: null,
      largest_piece: null,
      scale_source: 'given',
    });
    const { width, height, depth } = result.dimensions;
    console.info(`poster card: ${width.toFixed(4)} × ${height.toFixed(4)} × ${depth.toFixed(4)} m, aspect error ${(relativeError(width / height, 600 / 900) * 100).toFixed(3)}%`);
    expect(relativeError(width / height, 600 / 900)).toBeLessThan(0.02);
    expect(height).toBeCloseTo(0.9, 6);
    expect(depth).toBeGreaterThan(0);
    expect(depth).toBeLessThan(0.02);
    const glb = await inspect(result);
    expect(glb.validation.errors).toBe(0);
    expect(glb.max[0] - glb.min[0]).toBeCloseTo(width, 5);
    expect(glb.min[1]).toBeCloseTo(0, 6);
    // A rectangle makes a closed thin box: photo front and back plus edge faces.
    expect(result.triangles).toBe(12);
    expect(glb.materials.map((m) => m.getAlphaMode())).toContain('OPAQUE');
  });

  it('cuts a non-rectangular product out with an alpha mask, second view on the back', async () => {
    const front = await renderFlat({ width: 600, height: 600 }, { width: 400, height: 300, shape: 'ellipse' });
    const back = await renderFlat({ width: 600, height: 600 }, { width: 400, height: 300, shape: 'ellipse' });
    const result = await generator.generate([front, back], {});
    expect(result.method).toBe('relief_card');
    expect(relativeError(result.dimensions.width / result.dimensions.height, 4 / 3)).toBeLessThan(0.02);
    // No height given: the tallest side gets the default 0.3 m.
    expect(result.dimensions.width).toBeCloseTo(0.3, 6);
    const glb = await inspect(result);
    expect(glb.validation.errors).toBe(0);
    const [material] = glb.materials;
    expect(material.getAlphaMode()).toBe('MASK');
    expect(material.getBaseColorTexture()?.getMimeType()).toBe('image/png');
    const texture = await sharp(material.getBaseColorTexture()!.getImage()!).metadata();
    // Front and back side by side.
    expect(texture.width! / texture.height!).toBeCloseTo(2 * (4 / 3), 1);
  });

  it('uses a second view for the back only when it looks at the back', async () => {
    const front = await renderFlat({ width: 600, height: 600 }, { width: 300, height: 400, shape: 'ellipse' });
    const side = await renderFlat({ width: 600, height: 600 }, { width: 300, height: 400, shape: 'ellipse' });
    const result = await generator.generate([front, side], { azimuthsDeg: [0, 90] });
    const [material] = (await inspect(result)).materials;
    const texture = await sharp(material.getBaseColorTexture()!.getImage()!).metadata();
    // One tile: the front alone, shown mirrored on the back.
    expect(texture.width! / texture.height!).toBeCloseTo(3 / 4, 1);
  });

  it('fails with no_usable_views when every mask is empty', async () => {
    const blank = await blankMask(256, 256);
    const photo = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#c08040' } }).jpeg().toBuffer();
    const run = generator.generate([{ image: photo, mask: blank }, { image: photo, mask: blank }], {});
    await expect(run).rejects.toBeInstanceOf(MediaError);
    await expect(run).rejects.toMatchObject({ reason: 'no_usable_views' });
  });

  it('treats undecodable inputs as unusable views', async () => {
    const run = generator.generate([{ image: Buffer.from('not an image'), mask: Buffer.from('nor a mask') }], {});
    await expect(run).rejects.toMatchObject({ reason: 'no_usable_views' });
  });

  it('rejects nonsense hints', async () => {
    await expect(generator.generate([], { heightMetres: -1 })).rejects.toMatchObject({ reason: 'invalid_hints' });
  });
});
