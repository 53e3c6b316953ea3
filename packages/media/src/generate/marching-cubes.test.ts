import { describe, expect, it } from 'vitest';
import { marchingCubes, signedVolume, type ScalarGrid, type TriangleMesh } from './marching-cubes.js';
import { TRIANGLES } from './marching-cubes-table.js';

function sampleGrid(n: number, step: number, fn: (x: number, y: number, z: number) => number): ScalarGrid {
  const origin: [number, number, number] = [-((n - 1) * step) / 2, -((n - 1) * step) / 2, -((n - 1) * step) / 2];
  const values = new Float32Array(n * n * n);
  for (let z = 0; z < n; z++)
    for (let y = 0; y < n; y++)
      for (let x = 0; x < n; x++) values[x + n * (y + n * z)] = fn(origin[0] + x * step, origin[1] + y * step, origin[2] + z * step);
  return { values, nx: n, ny: n, nz: n, origin, step };
}

/** Every directed edge must appear once and its reverse once: closed, consistently wound. */
function openOrFlippedEdges(mesh: TriangleMesh): number {
  const directed = new Map<string, number>();
  const idx = mesh.indices;
  for (let i = 0; i < idx.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      const key = `${idx[i + k]}>${idx[i + ((k + 1) % 3)]}`;
      directed.set(key, (directed.get(key) ?? 0) + 1);
    }
  }
  let bad = 0;
  for (const [key, count] of directed) {
    const [a, b] = key.split('>');
    if (count !== 1 || directed.get(`${b}>${a}`) !== 1) bad++;
  }
  return bad;
}

describe('marching cubes table', () => {
  it('has nothing for empty and full cubes and one triangle for a lone corner', () => {
    expect(TRIANGLES[0].length).toBe(0);
    expect(TRIANGLES[255].length).toBe(0);
    for (let c = 0; c < 8; c++) expect(TRIANGLES[1 << c].length).toBe(3);
  });

  it('cuts two diagonal corners of a face off separately', () => {
    // Corners 0 and 3 are diagonal on the z = 0 face: two separate corner triangles.
    expect(TRIANGLES[0b1001].length).toBe(6);
  });
});

describe('marchingCubes', () => {
  it('turns a sphere field into a closed, outward-facing surface of the right volume', () => {
    const r = 0.37;
    const mesh = marchingCubes(sampleGrid(40, 0.025, (x, y, z) => r - Math.hypot(x, y, z)));
    expect(mesh.indices.length).toBeGreaterThan(1000);
    expect(openOrFlippedEdges(mesh)).toBe(0);
    const volume = signedVolume(mesh);
    expect(volume).toBeGreaterThan(0);
    expect(Math.abs(volume / ((4 / 3) * Math.PI * r ** 3) - 1)).toBeLessThan(0.02);
    for (let i = 0; i < mesh.positions.length; i += 3) {
      const d = Math.hypot(mesh.positions[i], mesh.positions[i + 1], mesh.positions[i + 2]);
      expect(Math.abs(d - r)).toBeLessThan(0.025 * 0.3);
    }
  });

  it('stays closed on a field with saddles and thin parts', () => {
    // Two close spheres plus noise-like ripples produce the ambiguous face patterns.
    const field = (x: number, y: number, z: number) =>
      Math.max(0.2 - Math.hypot(x - 0.21, y, z), 0.2 - Math.hypot(x + 0.21, y, z)) + 0.03 * Math.sin(40 * x) * Math.sin(37 * y) * Math.sin(41 * z);
    const mesh = marchingCubes(sampleGrid(36, 0.031, field));
    expect(mesh.indices.length).toBeGreaterThan(300);
    expect(openOrFlippedEdges(mesh)).toBe(0);
    expect(signedVolume(mesh)).toBeGreaterThan(0);
  });
});
