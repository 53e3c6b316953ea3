import { existsSync } from 'node:fs';
import { Document, Logger, NodeIO, type Buffer as GltfBuffer, type Scene } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { meshopt } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderTurntable } from './renders.js';

const chromiumPath = process.env.PLINTH_CHROMIUM_PATH || '/usr/bin/chromium';

type V3 = [number, number, number];

// One axis-aligned box as its own mesh: 24 vertices so each face gets a flat normal.
function addBox(doc: Document, buf: GltfBuffer, scene: Scene, size: V3, centre: V3, rgb: V3): void {
  const positions: number[] = [];
  const normals: number[] = [];
  const indices: number[] = [];
  for (let axis = 0; axis < 3; axis++) {
    for (const sign of [1, -1]) {
      const u = (axis + 1) % 3;
      const v = (axis + 2) % 3;
      const base = positions.length / 3;
      for (const [a, b] of [[-1, -1], [1, -1], [1, 1], [-1, 1]] as const) {
        const p: V3 = [0, 0, 0];
        p[axis] = (sign * size[axis]) / 2;
        p[u] = (a * size[u]) / 2;
        p[v] = (b * size[v]) / 2;
        positions.push(p[0] + centre[0], p[1] + centre[1], p[2] + centre[2]);
        const n: V3 = [0, 0, 0];
        n[axis] = sign;
        normals.push(...n);
      }
      // u × v = +axis, so this winding faces outward for sign +1; flip it for -1.
      const quad = sign > 0 ? [0, 1, 2, 0, 2, 3] : [0, 2, 1, 0, 3, 2];
      indices.push(...quad.map((k) => base + k));
    }
  }
  const attr = (type: 'VEC3' | 'SCALAR', data: Float32Array | Uint16Array) =>
    doc.createAccessor().setType(type).setArray(data).setBuffer(buf);
  const material = doc.createMaterial().setBaseColorFactor([...rgb, 1]).setRoughnessFactor(0.6).setMetallicFactor(0);
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', attr('VEC3', new Float32Array(positions)))
    .setAttribute('NORMAL', attr('VEC3', new Float32Array(normals)))
    .setIndices(attr('SCALAR', new Uint16Array(indices)))
    .setMaterial(material);
  scene.addChild(doc.createNode().setMesh(doc.createMesh().addPrimitive(prim)));
}

/**
 * A blue 0.4 × 0.3 × 0.2 m box standing on y = 0, with a red label on its +z face
 * and a green one on its +x face, so each view's orientation can be checked.
 */
function productDocument(): Document {
  // gltf-transform logs each transform step at INFO; keep the test output clean.
  const doc = new Document().setLogger(new Logger(Logger.Verbosity.WARN));
  const buf = doc.createBuffer();
  const scene = doc.createScene();
  doc.getRoot().setDefaultScene(scene);
  addBox(doc, buf, scene, [0.4, 0.3, 0.2], [0, 0.15, 0], [0.2, 0.3, 0.8]);
  addBox(doc, buf, scene, [0.2, 0.1, 0.01], [0, 0.15, 0.105], [1, 0, 0]);
  addBox(doc, buf, scene, [0.01, 0.1, 0.1], [0.205, 0.15, 0], [0, 1, 0]);
  return doc;
}

async function toGlb(doc: Document): Promise<Buffer> {
  await MeshoptEncoder.ready;
  const io = new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({ 'meshopt.encoder': MeshoptEncoder });
  return Buffer.from(await io.writeBinary(doc));
}

interface Decoded {
  width: number;
  height: number;
  channels: number;
  data: Buffer;
}

async function decode(png: Buffer): Promise<Decoded> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data };
}

function alphaAt(img: Decoded, x: number, y: number): number {
  return img.data[(y * img.width + x) * img.channels + 3]!;
}

/** Horizontal extent of the opaque silhouette, in pixels. */
function silhouetteWidth(img: Decoded): number {
  let lo = img.width;
  let hi = -1;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      if (alphaAt(img, x, y) >= 128) {
        lo = Math.min(lo, x);
        hi = Math.max(hi, x);
      }
    }
  }
  return hi - lo + 1;
}

/** Opaque pixels whose colour is dominated by one channel (0 red, 1 green). */
function countDominant(img: Decoded, channel: 0 | 1): number {
  let n = 0;
  for (let i = 0; i < img.data.length; i += img.channels) {
    if (img.data[i + 3]! < 255) continue;
    const c = img.data[i + channel]!;
    const others = [0, 1, 2].filter((k) => k !== channel).map((k) => img.data[i + k]!);
    if (c > 120 && others.every((o) => o < c * 0.5)) n++;
  }
  return n;
}

describe.skipIf(!existsSync(chromiumPath))('renderTurntable', () => {
  let pngs: Buffer[];
  let views: Decoded[];

  beforeAll(async () => {
    pngs = await renderTurntable(await toGlb(productDocument()), { chromiumPath, views: 4, size: 512 });
    views = await Promise.all(pngs.map(decode));
  }, 60_000);

  it('returns one square RGBA PNG per view', async () => {
    expect(pngs).toHaveLength(4);
    for (const png of pngs) {
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      const meta = await sharp(png).metadata();
      expect(meta.format).toBe('png');
      expect([meta.width, meta.height]).toEqual([512, 512]);
      expect(meta.hasAlpha).toBe(true);
    }
  });

  it('leaves the background transparent and the model opaque', () => {
    for (const img of views) {
      for (const [x, y] of [[0, 0], [511, 0], [0, 511], [511, 511], [5, 256], [256, 5]] as const) {
        expect(alphaAt(img, x, y)).toBe(0);
      }
      expect(alphaAt(img, 256, 256)).toBe(255);
    }
  });

  it('orbits from the front (+z) towards +x', () => {
    const red = views.map((v) => countDominant(v, 0));
    const green = views.map((v) => countDominant(v, 1));
    // The red label faces +z: seen head-on at 0°, hidden behind the box at 180°.
    expect(red[0]).toBeGreaterThan(3000);
    expect(red[2]).toBeLessThan(20);
    // The green label faces +x: head-on at 90°, hidden at 270°.
    expect(green[1]).toBeGreaterThan(1500);
    expect(green[3]).toBeLessThan(20);
  });

  it('keeps one scale across views, so silhouette widths follow the box (0.41 m vs 0.21 m)', () => {
    const widths = views.map(silhouetteWidth);
    // Front and back see the 0.41 m span, the sides the 0.21 m one.
    expect(widths[0]! / widths[1]!).toBeGreaterThan(1.75);
    expect(widths[0]! / widths[1]!).toBeLessThan(2.2);
    // Opposite views match up to perspective: the labels shift the sphere's centre
    // 5 mm off the box's, so one of each pair is ~1% nearer.
    expect(Math.abs(widths[0]! - widths[2]!)).toBeLessThanOrEqual(widths[0]! * 0.02);
    expect(Math.abs(widths[1]! - widths[3]!)).toBeLessThanOrEqual(widths[1]! * 0.02);
    // The bounding sphere (diameter ≈ 0.55 m) spans ~85% of the frame.
    expect(widths[0]! / 512).toBeGreaterThan(0.5);
    expect(widths[0]! / 512).toBeLessThan(0.8);
  });

  it('renders meshopt-compressed models like plain ones', async () => {
    const doc = productDocument();
    await doc.transform(meshopt({ encoder: MeshoptEncoder, level: 'medium' }));
    const glb = await toGlb(doc);
    expect(glb.includes(Buffer.from('EXT_meshopt_compression'))).toBe(true);
    const [png] = await renderTurntable(glb, { chromiumPath, views: 1, size: 512 });
    const img = await decode(png!);
    expect(Math.abs(silhouetteWidth(img) - silhouetteWidth(views[0]!))).toBeLessThanOrEqual(2);
    expect(countDominant(img, 0)).toBeGreaterThan(3000);
  }, 30_000);

  it('rejects a file that is not a GLB with a clear error', async () => {
    await expect(
      renderTurntable(Buffer.from('definitely not a binary glTF'), { chromiumPath, views: 2, size: 64 }),
    ).rejects.toThrow(/GLB failed to load/);
  }, 30_000);

  it('rejects a GLB without geometry', async () => {
    const doc = new Document();
    doc.getRoot().setDefaultScene(doc.createScene().addChild(doc.createNode()));
    await expect(renderTurntable(await toGlb(doc), { chromiumPath, views: 1, size: 64 })).rejects.toThrow(
      /no visible geometry/,
    );
  }, 30_000);

  it('gives up and kills the browser when the time budget runs out', async () => {
    const started = Date.now();
    await expect(
      renderTurntable(await toGlb(productDocument()), { chromiumPath, views: 360, size: 2048, timeoutMs: 6_000 }),
    ).rejects.toThrow(/timed out|Timeout/);
    expect(Date.now() - started).toBeLessThan(12_000);
  }, 30_000);

  it('renders the default 8 views at 2048 px', async () => {
    const started = Date.now();
    const big = await renderTurntable(await toGlb(productDocument()), { chromiumPath });
    const ms = Date.now() - started;
    console.log(`[renders] 8 views at 2048 px: ${ms} ms (launch included)`);
    expect(big).toHaveLength(8);
    for (const png of big) {
      const meta = await sharp(png).metadata();
      expect([meta.width, meta.height, meta.hasAlpha]).toEqual([2048, 2048, true]);
    }
    // Views at 45° steps: the 45° view shows both labels, the 0° view only the red
    // one (plus the green label's 1 cm edge).
    const [front, diagonal] = await Promise.all([decode(big[0]!), decode(big[1]!)]);
    expect(countDominant(diagonal, 0)).toBeGreaterThan(20_000);
    expect(countDominant(diagonal, 1)).toBeGreaterThan(20_000);
    expect(countDominant(front, 1)).toBeLessThan(countDominant(diagonal, 1) / 5);
  }, 60_000);

  it('validates options before launching anything', async () => {
    await expect(renderTurntable(Buffer.alloc(0), { chromiumPath, views: 0 })).rejects.toThrow(/views/);
    await expect(renderTurntable(Buffer.alloc(0), { chromiumPath, size: 10_000 })).rejects.toThrow(/size/);
    await expect(renderTurntable(Buffer.alloc(0), { chromiumPath, elevationDeg: 90 })).rejects.toThrow(/elevation/);
  });
});
