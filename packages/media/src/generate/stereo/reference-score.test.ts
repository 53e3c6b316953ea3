import { Document, NodeIO } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import type { TriangleMesh } from '../marching-cubes.js';
import { alignRigid, glbMesh, scoreAgainstReference } from './reference-score.test-support.js';
import { compareSurfaces, samplePoints } from './stereo-fixtures.test-support.js';

/** Two boxes in an L, 0.1 m tall: no turn about the vertical maps it onto itself. */
function lShape(): TriangleMesh {
  const positions: number[] = [];
  const indices: number[] = [];
  const box = (lo: number[], hi: number[]) => {
    const base = positions.length / 3;
    for (let i = 0; i < 8; i++) positions.push(i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]);
    for (const [a, b, c, d] of [
      [0, 1, 3, 2],
      [4, 6, 7, 5],
      [0, 4, 5, 1],
      [2, 3, 7, 6],
      [0, 2, 6, 4],
      [1, 5, 7, 3],
    ]) indices.push(base + a, base + b, base + c, base + a, base + c, base + d);
  };
  box([0, 0, 0], [0.06, 0.1, 0.02]);
  box([0, 0, 0.02], [0.02, 0.04, 0.05]);
  return { positions: Float32Array.from(positions), indices: Uint32Array.from(indices) };
}

/** Turned `deg` about the vertical, tipped `tipDeg` about x, and moved by `t`. */
function moved(points: Float32Array, deg: number, tipDeg: number, t: number[]): Float32Array {
  const [c, s] = [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];
  const [ct, st] = [Math.cos((tipDeg * Math.PI) / 180), Math.sin((tipDeg * Math.PI) / 180)];
  const out = new Float32Array(points.length);
  for (let i = 0; i < points.length; i += 3) {
    const [x, y, z] = [points[i], points[i + 1], points[i + 2]];
    const [x1, z1] = [c * x + s * z, -s * x + c * z];
    out[i] = x1 + t[0];
    out[i + 1] = ct * y - st * z1 + t[1];
    out[i + 2] = st * y + ct * z1 + t[2];
  }
  return out;
}

async function glbOf(mesh: TriangleMesh, translation: [number, number, number]): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(mesh.positions).setBuffer(buffer))
    .setIndices(doc.createAccessor().setType('SCALAR').setArray(mesh.indices).setBuffer(buffer));
  const node = doc.createNode().setMesh(doc.createMesh().addPrimitive(prim)).setTranslation(translation);
  doc.createScene().addChild(node);
  return new NodeIO().writeBinary(doc);
}

describe('scoring a model against a reference in another frame', () => {
  const truth = samplePoints(lShape(), 4_000, 5);
  // Two samplings of one surface, unmoved: what a perfect fit scores at this density.
  const perfect = compareSurfaces(samplePoints(lShape(), 4_000, 3), truth, 0.002).fscore;

  it('lays a turned, tipped and moved copy back onto the reference', () => {
    const copy = moved(samplePoints(lShape(), 4_000, 3), 110, 4, [0.01, -0.005, 0.012]);
    expect(compareSurfaces(copy, truth, 0.002).fscore).toBeLessThan(0.2);
    const { aligned } = alignRigid(copy, truth, 0.12);
    expect(compareSurfaces(aligned, truth, 0.002).fscore).toBeGreaterThan(perfect - 0.01);
  });

  it('finds an upside-down copy too', () => {
    const copy = moved(samplePoints(lShape(), 4_000, 3), 200, 180, [0, 0.2, 0]);
    const { aligned, flipped } = alignRigid(copy, truth, 0.12);
    expect(flipped).toBe(true);
    expect(compareSurfaces(aligned, truth, 0.002).fscore).toBeGreaterThan(perfect - 0.01);
  });

  it('reads GLBs in world space and scores a different shape low, whatever the fit', async () => {
    const reference = await glbOf(lShape(), [1, 2, 3]);
    expect((await glbMesh(reference)).positions[0]).toBeCloseTo(1, 5);
    expect((await scoreAgainstReference(reference, reference, 0.02, 8_000)).fscore).toBeGreaterThan(0.99);
    // The long box alone: half the reference's surface is missing from it.
    const bar = lShape();
    const alone = { positions: bar.positions.slice(0, 24), indices: bar.indices.slice(0, 36) };
    const score = await scoreAgainstReference(await glbOf(alone, [0, 0, 0]), reference, 0.02, 8_000);
    expect(score.precision).toBeGreaterThan(0.9);
    expect(score.recall).toBeLessThan(0.85);
  });
});
