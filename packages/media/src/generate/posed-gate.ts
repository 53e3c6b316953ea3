import { projectPoint, type PosedCamera } from '../poses/camera.js';
import type { TriangleMesh } from './marching-cubes.js';
import { MASK_THRESHOLD, type PreparedView } from './prepared-view.js';

// The honest check: a model is only as good as its agreement with the photos it came from. Each used view's
// mask is compared with the model's silhouette seen through that view's camera, and the mesh must be one
// piece. A blob (wrong cameras) disagrees with the masks; confetti fails the one-piece test.

/** Gate of a ready model, as published: median IoU and largest piece share. */
export const MIN_MEDIAN_IOU = 0.85;
export const MIN_LARGEST_PIECE = 0.95;

/** Silhouettes are compared at this size at most: IoU needs outline, not detail. */
const GATE_SIDE = 320;

/** Fills the triangles' projections into a w×h coverage bitmap (scale: bitmap pixels per image pixel). */
export function rasterSilhouette(mesh: TriangleMesh, cam: PosedCamera, w: number, h: number, scale: number): Uint8Array {
  const out = new Uint8Array(w * h);
  const { positions, indices } = mesh;
  const proj = new Float64Array((positions.length / 3) * 2);
  const front = new Uint8Array(positions.length / 3);
  for (let v = 0; v < positions.length / 3; v++) {
    const [px, py, depth] = projectPoint(cam, positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2]);
    proj[v * 2] = px * scale;
    proj[v * 2 + 1] = py * scale;
    front[v] = depth > 0 ? 1 : 0;
  }
  for (let t = 0; t < indices.length; t += 3) {
    const [a, b, c] = [indices[t], indices[t + 1], indices[t + 2]];
    if (!front[a] || !front[b] || !front[c]) continue;
    const ax = proj[a * 2], ay = proj[a * 2 + 1];
    const bx = proj[b * 2], by = proj[b * 2 + 1];
    const cx = proj[c * 2], cy = proj[c * 2 + 1];
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area === 0) continue;
    const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx)));
    const x1 = Math.min(w - 1, Math.ceil(Math.max(ax, bx, cx)));
    const y0 = Math.max(0, Math.floor(Math.min(ay, by, cy)));
    const y1 = Math.min(h - 1, Math.ceil(Math.max(ay, by, cy)));
    const sign = area > 0 ? 1 : -1;
    for (let y = y0; y <= y1; y++) {
      const sy = y + 0.5;
      for (let x = x0; x <= x1; x++) {
        if (out[y * w + x]) continue;
        const sx = x + 0.5;
        const e0 = ((bx - ax) * (sy - ay) - (by - ay) * (sx - ax)) * sign;
        const e1 = ((cx - bx) * (sy - by) - (cy - by) * (sx - bx)) * sign;
        const e2 = ((ax - cx) * (sy - cy) - (ay - cy) * (sx - cx)) * sign;
        if (e0 >= 0 && e1 >= 0 && e2 >= 0) out[y * w + x] = 1;
      }
    }
  }
  return out;
}

/** Intersection over union of the model's silhouette and the view's mask. */
export function silhouetteIoU(mesh: TriangleMesh, view: PreparedView, cam: PosedCamera): number {
  const scale = Math.min(1, GATE_SIDE / Math.max(view.imageWidth, view.imageHeight));
  const w = Math.max(1, Math.round(view.imageWidth * scale));
  const h = Math.max(1, Math.round(view.imageHeight * scale));
  const model = rasterSilhouette(mesh, cam, w, h, scale);
  let inter = 0;
  let union = 0;
  for (let y = 0; y < h; y++) {
    const my = Math.min(view.maskHeight - 1, Math.floor(((y + 0.5) / scale) * view.maskScaleY));
    for (let x = 0; x < w; x++) {
      const mx = Math.min(view.maskWidth - 1, Math.floor(((x + 0.5) / scale) * view.maskScaleX));
      const inMask = view.mask[my * view.maskWidth + mx] >= MASK_THRESHOLD;
      const inModel = model[y * w + x] === 1;
      if (inMask && inModel) inter++;
      if (inMask || inModel) union++;
    }
  }
  return union === 0 ? 0 : inter / union;
}

/**
 * Share of the triangles in the largest connected piece. Vertices are welded by position first, as texturing
 * splits them along chart borders without cutting the surface.
 */
export function largestPieceShare(mesh: TriangleMesh): number {
  const { positions, indices } = mesh;
  const triangles = indices.length / 3;
  if (triangles === 0) return 0;
  const weld = new Map<string, number>();
  const id = new Int32Array(positions.length / 3);
  for (let v = 0; v < id.length; v++) {
    const key = `${positions[v * 3]},${positions[v * 3 + 1]},${positions[v * 3 + 2]}`;
    let w = weld.get(key);
    if (w === undefined) {
      w = weld.size;
      weld.set(key, w);
    }
    id[v] = w;
  }
  const parent = Int32Array.from({ length: weld.size }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  for (let t = 0; t < indices.length; t += 3) {
    const a = find(id[indices[t]]);
    parent[find(id[indices[t + 1]])] = a;
    parent[find(id[indices[t + 2]])] = a;
  }
  const counts = new Map<number, number>();
  let best = 0;
  for (let t = 0; t < indices.length; t += 3) {
    const root = find(id[indices[t]]);
    const n = (counts.get(root) ?? 0) + 1;
    counts.set(root, n);
    if (n > best) best = n;
  }
  return best / triangles;
}

export interface GateResult {
  ious: number[];
  median: number;
  min: number;
  largestPiece: number;
  passed: boolean;
}

export function gateModel(mesh: TriangleMesh, views: readonly PreparedView[], cams: readonly PosedCamera[]): GateResult {
  const ious = views.map((view, k) => silhouetteIoU(mesh, view, cams[k]));
  const sorted = [...ious].sort((a, b) => a - b);
  const median = sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  const largestPiece = largestPieceShare(mesh);
  return {
    ious,
    median,
    min: sorted[0] ?? 0,
    largestPiece,
    passed: median >= MIN_MEDIAN_IOU && largestPiece >= MIN_LARGEST_PIECE,
  };
}
