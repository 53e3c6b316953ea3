import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { textureHull, type TexturedMesh } from './hull-texture.js';
import { albedo, checkerCell, icosphere, photographBall } from './texture-fixtures.test-support.js';

const TEXTURE_SIZE = 512;
/** Heights of the unit ball (|y|) measured: latitudes within ±37°. */
const SEEN_BAND = 0.6;

interface Steps {
  /** Mean colour difference (0–255, per channel) across borders between photos, where the paint is the same on both sides. */
  seam: number;
  seamPairs: number;
  /** The same across the checker's own edges inside one photo's charts: the texture's detail. */
  detail: number;
  detailPairs: number;
  /** The same inside charts where the paint does not change: the floor the seams can be levelled to. */
  flat: number;
}

/**
 * Samples the texture a little inside both triangles of every edge (a third of the way to the opposite
 * corner) and compares the two colours. Edges are found on the input vertices: output vertices are split
 * where the photo changes, so an edge whose two triangles use different output vertices is a seam.
 */
async function measureSteps(textured: { mesh: TexturedMesh; texture: Buffer }): Promise<Steps> {
  const { data, info } = await sharp(textured.texture).raw().toBuffer({ resolveWithObject: true });
  const { positions, uvs, indices } = textured.mesh;
  const sample = (weights: [number, number][]) => {
    let [u, v] = [0, 0];
    const p = [0, 0, 0];
    for (const [vertex, w] of weights) {
      u += w * uvs[vertex * 2] * info.width - 0.5 * w;
      v += w * uvs[vertex * 2 + 1] * info.height - 0.5 * w;
      for (let k = 0; k < 3; k++) p[k] += w * positions[vertex * 3 + k];
    }
    // Bilinear, as the viewer's sampler does.
    const [x, y] = [Math.floor(u), Math.floor(v)];
    const [fx, fy] = [u - x, v - y];
    const colour = [0, 1, 2].map((c) => {
      const at = (xx: number, yy: number) => data[(yy * info.width + xx) * info.channels + c];
      return (1 - fy) * ((1 - fx) * at(x, y) + fx * at(x + 1, y)) + fy * ((1 - fx) * at(x, y + 1) + fx * at(x + 1, y + 1));
    });
    return { colour, cell: checkerCell(p), y: p[1] };
  };
  const key = (v: number) => `${positions[v * 3]},${positions[v * 3 + 1]},${positions[v * 3 + 2]}`;
  const edges = new Map<string, { a: number; b: number; opposite: number }[]>();
  for (let t = 0; t < indices.length; t += 3) {
    for (let e = 0; e < 3; e++) {
      const [a, b, opposite] = [indices[t + e], indices[t + ((e + 1) % 3)], indices[t + ((e + 2) % 3)]];
      const id = [key(a), key(b)].sort().join('|');
      const list = edges.get(id) ?? [];
      list.push({ a, b, opposite });
      edges.set(id, list);
    }
  }
  const steps = { seam: 0, seamPairs: 0, detail: 0, detailPairs: 0, flat: 0, flatPairs: 0 };
  for (const sides of edges.values()) {
    if (sides.length !== 2) continue;
    const [s, t] = sides.map(({ a, b, opposite }) =>
      sample([
        [a, 1 / 3],
        [b, 1 / 3],
        [opposite, 1 / 3],
      ]),
    );
    // Only where the ring of cameras sees the ball well: the cap on top is seen edge-on by every photo, and
    // the underside by none (coloured from whatever lies in front of it, which no levelling can mend).
    if (Math.abs(s.y) > SEEN_BAND || Math.abs(t.y) > SEEN_BAND) continue;
    const step = s.colour.reduce((sum, c, k) => sum + Math.abs(c - t.colour[k]), 0) / 3;
    const split = !(new Set([sides[0].a, sides[0].b, sides[1].a, sides[1].b]).size === 2);
    if (split && s.cell === t.cell) {
      steps.seam += step;
      steps.seamPairs++;
    } else if (!split && albedo(s.cell) !== albedo(t.cell)) {
      steps.detail += step;
      steps.detailPairs++;
    } else if (!split) {
      steps.flat += step;
      steps.flatPairs++;
    }
  }
  return { ...steps, seam: steps.seam / steps.seamPairs, detail: steps.detail / steps.detailPairs, flat: steps.flat / steps.flatPairs };
}

describe('seams between photos', () => {
  it('levels the colour step where two photos meet and keeps the texture’s detail', { timeout: 60_000 }, async () => {
    // Eight photos with white balance off by up to ±12 % per channel and a lamp 30° to the side of each
    // camera: along every border, the two photos disagree on the colour of the same paint.
    const ball = await photographBall(8, 320, { whiteBalance: 0.12, lampDeg: 30 });
    const mesh = icosphere(4);
    const plain = await textureHull(mesh, ball.views, ball.cams, TEXTURE_SIZE, { levelSeams: false });
    const levelled = await textureHull(mesh, ball.views, ball.cams, TEXTURE_SIZE);
    const before = await measureSteps(plain);
    const after = await measureSteps(levelled);
    console.log('seam steps before', before, 'after', after);
    // Levelling changes only colours: the same charts, the same seams.
    expect(levelled.mesh.uvs).toEqual(plain.mesh.uvs);
    expect(after.seamPairs).toBe(before.seamPairs);
    expect(before.seamPairs).toBeGreaterThan(100);
    // Unlevelled, the borders show: a step several times the texture's own variation inside a chart.
    // Levelled, most of it is gone, down to that variation.
    expect(before.seam).toBeGreaterThan(2 * before.flat);
    expect(after.seam).toBeLessThan(before.seam * 0.3);
    expect(after.seam).toBeLessThan(1.25 * after.flat);
    // The checker's own edges, inside charts, stay as sharp as in the photos.
    expect(after.detailPairs).toBeGreaterThan(100);
    expect(after.detail).toBeGreaterThan(before.detail * 0.9);
  });

  it('leaves photos that already agree alone', { timeout: 60_000 }, async () => {
    // Same white balance, lamp on the camera: every photo sees a point alike at the border between two of them.
    const ball = await photographBall(8, 320, { whiteBalance: 0, lampDeg: 0 });
    const mesh = icosphere(4);
    const plain = await textureHull(mesh, ball.views, ball.cams, TEXTURE_SIZE, { levelSeams: false });
    const levelled = await textureHull(mesh, ball.views, ball.cams, TEXTURE_SIZE);
    const [a, b] = await Promise.all([plain.texture, levelled.texture].map((t) => sharp(t).raw().toBuffer()));
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff += Math.abs(a[i] - b[i]);
    console.log('mean change with agreeing photos', diff / a.length);
    expect(diff / a.length).toBeLessThan(1);
  });
});
