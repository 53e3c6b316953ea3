import { projectPoint, type PosedCamera } from '../../poses/camera.js';
import type { TriangleMesh } from '../marching-cubes.js';

// A mesh drawn into a camera as depth: per pixel the nearest and the farthest surface along the pixel's ray
// (camera z). For the visual hull these bound where the product can be along each ray, which is all the
// stereo search needs to look through; for a model they are its z-buffer, which the texture tests
// occlusion against.

export interface DepthRange {
  width: number;
  height: number;
  /** Nearest surface depth per pixel (row-major); Infinity where the mesh is not seen. */
  near: Float32Array;
  /** Farthest surface depth per pixel; -Infinity where the mesh is not seen. */
  far: Float32Array;
}

/**
 * Rasterises the mesh into a `width` × `height` image of the camera (its intrinsics scaled to that size),
 * pixel centres at integer + 0.5; depth is interpolated as 1/z, which is linear on the screen.
 */
export function rasterDepth(mesh: TriangleMesh, camera: PosedCamera, width: number, height: number): DepthRange {
  const sx = width / camera.width;
  const sy = height / camera.height;
  const near = new Float32Array(width * height).fill(Infinity);
  const far = new Float32Array(width * height).fill(-Infinity);
  const { positions: p, indices } = mesh;
  const vertexCount = p.length / 3;
  const screen = new Float64Array(vertexCount * 3);
  for (let v = 0; v < vertexCount; v++) {
    const [x, y, z] = projectPoint(camera, p[v * 3], p[v * 3 + 1], p[v * 3 + 2]);
    screen[v * 3] = x * sx;
    screen[v * 3 + 1] = y * sy;
    screen[v * 3 + 2] = z;
  }
  for (let t = 0; t < indices.length; t += 3) {
    const a = indices[t] * 3;
    const b = indices[t + 1] * 3;
    const c = indices[t + 2] * 3;
    const [za, zb, zc] = [screen[a + 2], screen[b + 2], screen[c + 2]];
    if (!(za > 1e-6 && zb > 1e-6 && zc > 1e-6)) continue;
    const [ax, ay, bx, by, cx, cy] = [screen[a], screen[a + 1], screen[b], screen[b + 1], screen[c], screen[c + 1]];
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (Math.abs(area) < 1e-12) continue;
    const x0 = Math.max(0, Math.ceil(Math.min(ax, bx, cx) - 0.5));
    const x1 = Math.min(width - 1, Math.floor(Math.max(ax, bx, cx) - 0.5));
    const y0 = Math.max(0, Math.ceil(Math.min(ay, by, cy) - 0.5));
    const y1 = Math.min(height - 1, Math.floor(Math.max(ay, by, cy) - 0.5));
    const [ia, ib, ic] = [1 / za, 1 / zb, 1 / zc];
    for (let y = y0; y <= y1; y++) {
      const py = y + 0.5;
      for (let x = x0; x <= x1; x++) {
        const px = x + 0.5;
        const wa = ((bx - px) * (cy - py) - (by - py) * (cx - px)) / area;
        const wb = ((cx - px) * (ay - py) - (cy - py) * (ax - px)) / area;
        const wc = 1 - wa - wb;
        if (wa < -1e-9 || wb < -1e-9 || wc < -1e-9) continue;
        const z = 1 / (wa * ia + wb * ib + wc * ic);
        const i = y * width + x;
        if (z < near[i]) near[i] = z;
        if (z > far[i]) far[i] = z;
      }
    }
  }
  return { width, height, near, far };
}
