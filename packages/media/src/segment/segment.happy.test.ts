import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { MediaError } from '../errors.js';
import { EMPTY_SCENES, SCENES, iou, makeScene } from './synthetic-scenes.js';
import { locateModel, modelPackageDir, reassemble } from './isnet-model.js';
import { chooseSegmenter, segmentImage, segmentRgb } from './segment.js';

const classical = chooseSegmenter({ kind: 'classical' });
const studio = SCENES.filter((s) => s.backdrop === 'plain' || s.backdrop === 'gradient');

describe('classical segmenter', () => {
  it('cuts products out of plain and gradient backdrops, floors and shadows left out (mean IoU ≥ 0.8)', async () => {
    const scores: number[] = [];
    for (const scene of studio) {
      const s = makeScene(scene);
      const r = await segmentRgb(s.image, classical);
      expect(r.alpha.length).toBe(s.image.width * s.image.height);
      expect(r.cutout.method).toBe('classical');
      expect(r.cutout.status, scene.name).not.toBe('none');
      scores.push(iou(r.alpha, s.truth));
    }
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    expect(mean).toBeGreaterThanOrEqual(0.8);
  }, 180_000);

  it('never presents a wrong cut-out of a busy background as ok', async () => {
    for (const scene of SCENES.filter((s) => s.backdrop === 'textured' || s.backdrop === 'photographic')) {
      const s = makeScene(scene);
      const r = await segmentRgb(s.image, classical);
      if (iou(r.alpha, s.truth) < 0.8) expect(r.cutout.status, scene.name).not.toBe('ok');
    }
  }, 180_000);

  it('answers none, with the whole frame, when there is no product', async () => {
    for (const scene of EMPTY_SCENES) {
      const r = await segmentRgb(makeScene(scene).image, classical);
      expect(r.cutout.status, scene.name).toBe('none');
      expect(r.cutout.confidence).toBeLessThanOrEqual(0.2);
    }
  }, 120_000);

  it('keeps the soft rim at full resolution: no staircase from a small mask', async () => {
    // A 1600-px photo is segmented at 512 px; its alpha must still have in-between values along the rim.
    const s = makeScene(studio[0]);
    const big = await sharp(s.image.data, { raw: { width: 640, height: 480, channels: 3 } })
      .resize(1600, 1200, { kernel: 'lanczos3' })
      .png()
      .toBuffer();
    const r = await segmentImage(big, classical);
    expect([r.width, r.height]).toEqual([1600, 1200]);
    let soft = 0;
    let rim = 0;
    for (let i = 0; i < r.alpha.length; i++) {
      if (r.alpha[i] > 0 && r.alpha[i] < 255) soft++;
    }
    // The box outline is ~2 x (450 + 675) px long at this scale: the soft band must cover it.
    rim = 2 * (450 + 675);
    expect(soft).toBeGreaterThan(rim);
    expect(soft).toBeLessThan(rim * 12);
  }, 120_000);

  it('keeps the alpha an image already has, and labels renders', async () => {
    const alpha = Buffer.alloc(200 * 200);
    for (let y = 50; y < 150; y++) for (let x = 60; x < 140; x++) alpha[y * 200 + x] = 255;
    const png = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#336699' } })
      .joinChannel(alpha, { raw: { width: 200, height: 200, channels: 1 } })
      .png()
      .toBuffer();
    const own = await segmentImage(png, classical);
    expect(own.cutout).toMatchObject({ status: 'ok', method: 'alpha' });
    expect(Buffer.from(own.alpha).equals(alpha)).toBe(true);
    const rendered = await segmentImage(png, classical, { rendered: true });
    expect(rendered.cutout.method).toBe('rendered');
  });
});

describe('IS-Net model files', () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('refuses a chunk that does not match its hash', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'plinth-model-'));
    dirs.push(dir);
    const good = Buffer.from('first chunk of a model');
    const bad = Buffer.from('second chunk, tampered');
    const { createHash } = await import('node:crypto');
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const claimed = sha(Buffer.from('second chunk, original'));
    await writeFile(path.join(dir, sha(good)), good);
    await writeFile(path.join(dir, claimed), bad);
    const total = good.length + bad.length;
    await writeFile(
      path.join(dir, 'resources.json'),
      JSON.stringify({
        '/models/x': {
          chunks: [
            { hash: sha(good), offsets: [0, good.length] },
            { hash: claimed, offsets: [good.length, total] },
          ],
          size: total,
        },
      }),
    );
    await expect(reassemble(dir, '/models/x')).rejects.toThrow(MediaError);
    await expect(reassemble(dir, '/models/x')).rejects.toThrow(/hash/);
    await expect(reassemble(dir, '/models/missing')).rejects.toThrow(/does not list/);
  });

  it('an explicit model path wins over the package', () => {
    expect(locateModel('/models/isnet.onnx', 'medium')).toMatchObject({ kind: 'file', name: 'isnet.onnx' });
  });
});

const packageDir = modelPackageDir();
if (!packageDir) {
  console.warn('segment.happy.test: @imgly/background-removal-data is not installed; IS-Net tests skipped (npx plinth segmenter install)');
}

describe.skipIf(!packageDir)('isnet segmenter', () => {
  const isnet = packageDir ? chooseSegmenter({ kind: 'isnet' }) : classical;

  it('reassembles the medium model from its verified chunks', async () => {
    const bytes = await reassemble(packageDir!, '/models/medium');
    const resources = JSON.parse(await readFile(path.join(packageDir!, 'resources.json'), 'utf8'));
    expect(bytes.length).toBe(resources['/models/medium'].size);
  }, 120_000);

  it('cuts out products on every kind of backdrop (mean IoU ≥ 0.9) and finds nothing in an empty frame', async () => {
    const scores: Record<string, number> = {};
    for (const scene of SCENES) {
      const s = makeScene(scene);
      const r = await segmentRgb(s.image, isnet);
      expect(r.cutout.method).toBe('isnet');
      scores[scene.name] = iou(r.alpha, s.truth);
      if (scores[scene.name] < 0.8) expect(r.cutout.status, scene.name).not.toBe('ok');
    }
    const values = Object.values(scores);
    expect(values.reduce((a, b) => a + b, 0) / values.length, JSON.stringify(scores)).toBeGreaterThanOrEqual(0.9);
    const empty = await segmentRgb(makeScene(EMPTY_SCENES[0]).image, isnet);
    expect(empty.cutout.status).toBe('none');
  }, 600_000);
});

